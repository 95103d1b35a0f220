// `nccl-roce ab`'s report of an AbReport: markdown for people, JSON (schema nccl-roce.ab/1) for tools, SVG for
// dashboards and reviews (ratio per size bucket per arm, with intervals).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/ab_comparison.h"

namespace nccl_roce::fleet {

std::string abToMarkdown(const AbReport& report);
nlohmann::ordered_json abToJson(const AbReport& report);
std::string abToSvg(const AbReport& report);

}  // namespace nccl_roce::fleet

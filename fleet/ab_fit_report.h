// `nccl-roce ab fit`'s report of every challenge: markdown for the review of a fitted policy, JSON (schema
// nccl-roce.ab-fit/1) for tools.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/ab_fit.h"

namespace nccl_roce::fleet {

std::string abFitToMarkdown(const AbFit& fit);
nlohmann::ordered_json abFitToJson(const AbFit& fit);

}  // namespace nccl_roce::fleet

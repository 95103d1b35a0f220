// `nccl-roce doctor` output: a line per check (with its remedy) or one JSON document for automation:
// {"checks":[{"id","title","status","detail","remedy"}...],"summary":{"pass":n,"warn":n,"fail":n,"skip":n}}
#pragma once

#include <string>
#include <vector>

#include "cli/doctor/check.h"

namespace nccl_roce::doctor {

std::string reportText(const std::vector<CheckResult>& results);
std::string reportJson(const std::vector<CheckResult>& results);

}  // namespace nccl_roce::doctor

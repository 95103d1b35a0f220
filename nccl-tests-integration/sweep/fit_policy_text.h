// Writing a fit: the policy file (TOML, docs/policy-format.md; every rule with its evidence in a comment) and a
// markdown report of every size's decision.
#pragma once

#include <string>

#include "nccl-tests-integration/sweep/fit.h"

namespace nccl_roce::sweep {

std::string fittedPolicyToml(const FitResult& fit, const FitOptions& options);
std::string fitReportMarkdown(const FitResult& fit, const FitOptions& options);

}  // namespace nccl_roce::sweep

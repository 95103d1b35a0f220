#include "cli/generated_policy.h"

#include <cstdio>
#include <vector>

#include "tuner/policy_checks.h"
#include "tuner/policy_toml.h"

namespace nccl_roce::cli {

bool generatedPolicyLintsClean(const std::string& policy, const char* command) {
  tuner::PolicyDocument document = tuner::parsePolicyToml(policy, "fitted policy");
  std::vector<tuner::PolicyError> problems = document.errors;
  if (document.policy) {
    for (tuner::PolicyError& e : tuner::checkPolicy(*document.policy)) problems.push_back(std::move(e));
  }
  if (problems.empty() && document.policy) return true;
  if (problems.empty())
    std::fprintf(stderr, "nccl-roce %s: the fitted policy is not a policy (a bug; please report)\n", command);
  for (const tuner::PolicyError& e : problems) {
    std::fprintf(stderr, "nccl-roce %s: the fitted policy does not lint (a bug; please report): %s\n", command,
                 e.toString().c_str());
  }
  return false;
}

}  // namespace nccl_roce::cli

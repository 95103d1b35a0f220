#include "cli/generated_policy.h"

#include <cstdio>
#include <vector>

#include "policy/policy_toml.h"

namespace nccl_roce::cli {

bool generatedPolicyLintsClean(const std::string& policy, const char* command) {
  // parsePolicyToml runs the policy checks too (checkPolicy): its errors are everything lint would say.
  policy::PolicyDocument document = policy::parsePolicyToml(policy, "fitted policy");
  if (document.errors.empty() && document.policy) return true;
  if (document.errors.empty())
    std::fprintf(stderr, "nccl-roce %s: the fitted policy is not a policy (a bug; please report)\n", command);
  for (const policy::PolicyError& e : document.errors) {
    std::fprintf(stderr, "nccl-roce %s: the fitted policy does not lint (a bug; please report): %s\n", command,
                 e.toString().c_str());
  }
  return false;
}

}  // namespace nccl_roce::cli

// Whole-policy checks beyond syntax: rules that can never fire, and size ranges that overlap between rules
// with the same selectors (first match would silently shadow the later one).
#pragma once

#include <vector>

#include "policy/policy.h"
#include "policy/policy_error.h"

namespace nccl_roce::policy {

// selectorsRead[i] false leaves rule i out (its selectors are not what was written, and an error says so already:
// an overlap found with them would be a follow-on error about text that is not there). Empty: every rule is in.
std::vector<PolicyError> checkPolicy(const Policy& policy, const std::vector<bool>& selectorsRead = {});

}  // namespace nccl_roce::policy

// Whole-policy checks beyond syntax: rules that can never fire, and size ranges that overlap between rules
// with the same selectors (first match would silently shadow the later one).
#pragma once

#include <vector>

#include "policy/policy.h"
#include "policy/policy_error.h"

namespace nccl_roce::policy {

std::vector<PolicyError> checkPolicy(const Policy& policy);

}  // namespace nccl_roce::policy

// Reads policy and experiment files (docs/policy-format.md) with toml++; every problem is reported with its
// file:line:column, all of them at once, so `nccl-roce policy lint` can list them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "policy/policy.h"
#include "policy/policy_error.h"

namespace nccl_roce::policy {

// A file holds either a policy ([policy] and [[rule]]) or an experiment ([experiment] with arms).
struct PolicyDocument {
  std::optional<Policy> policy;
  std::optional<Experiment> experiment;  // arm policies not yet loaded
  std::vector<PolicyError> errors;       // empty when the document is usable

  bool ok() const { return errors.empty() && (policy || experiment); }
};

PolicyDocument parsePolicyToml(const std::string& text, const std::string& sourceName);

}  // namespace nccl_roce::policy

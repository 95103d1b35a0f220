// What NCCL_ROCE_POLICY names — a built-in policy, a policy file (our TOML or NCCL's example CSV) or an
// experiment file — loaded and checked into an immutable ActivePolicy. Loading is pure (no cache here): the
// plugin's process context keeps one ActivePolicy per distinct value, so every communicator of a process sees
// the same policy whatever happens to the file afterwards (plugin/policy_registry.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/policy.h"
#include "policy/policy_error.h"

namespace nccl_roce::policy {

class ActivePolicy {
 public:
  // The `nccl` passthrough, with the reason the requested policy could not be used.
  static std::shared_ptr<const ActivePolicy> fallback(std::string requested, std::string error);

  const std::string& requested() const { return requested_; }
  // Non-empty when the requested policy was unusable and the `nccl` passthrough runs instead.
  const std::string& error() const { return error_; }
  // The policy, unless an experiment assigns one per communicator (tuner/experiment.h assignPolicy).
  const std::shared_ptr<const Policy>& policy() const { return policy_; }
  const std::optional<Experiment>& experiment() const { return experiment_; }
  // The identity a pin compares (policy/policy_digest.h): the policy's; for an experiment, the experiment's (its
  // text and every arm's policy identity, so a changed arm file changes it). Empty for the fallback.
  const std::string& digest() const { return digest_; }
  // Whether a rule of the policy (of any arm, written or generated) sets a chunk size: what needs NCCL's
  // getChunkSize (2.30.2 and later).
  bool setsChunkSizes() const;
  // Environment defaults: the policy's, or for an experiment those every arm agrees on.
  const std::vector<std::pair<std::string, std::string>>& environmentDefaults() const { return env_; }

 private:
  friend std::shared_ptr<const ActivePolicy> loadPolicySpec(const std::string& value, std::vector<PolicyError>* errors);
  friend std::shared_ptr<const ActivePolicy> loadPolicyText(const std::string& text, const std::string& name,
                                                            std::vector<PolicyError>* errors);
  // A policy or an experiment from its text; `name` is its path when `fromFile` (arms resolve relative to it), else
  // a label (arms are then built-in names or absolute paths).
  static std::shared_ptr<const ActivePolicy> fromText(const std::string& name, const std::string& text, bool csv,
                                                      bool fromFile, const std::string& requested,
                                                      std::vector<PolicyError>& out);
  std::string requested_;
  std::string error_;
  std::string digest_;
  std::shared_ptr<const Policy> policy_;
  std::optional<Experiment> experiment_;
  std::vector<std::pair<std::string, std::string>> env_;
};

// Loads `value` (a built-in name or a path; empty means the default policy). Any problem gives the `nccl`
// passthrough with error() set; all problems found are appended to *errors when given (for lint).
std::shared_ptr<const ActivePolicy> loadPolicySpec(const std::string& value, std::vector<PolicyError>* errors);

// The same from text (NCCL_ROCE_POLICY_INLINE): `name` labels it in messages. An experiment's arms are then
// built-in names or absolute paths; a relative path is an error (there is no file to be relative to).
std::shared_ptr<const ActivePolicy> loadPolicyText(const std::string& text, const std::string& name,
                                                   std::vector<PolicyError>* errors);

// Parses one policy (not an experiment): built-in name or file. nullptr with errors when unusable.
std::shared_ptr<const Policy> loadSinglePolicy(const std::string& ref, std::vector<PolicyError>* errors);

}  // namespace nccl_roce::policy

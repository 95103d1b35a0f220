// A policy pinned by content digest: NCCL_ROCE_POLICY_DIGEST=sha256:<64 hex digits>, as `nccl-roce policy digest`
// prints it (for a single policy file, what `sha256sum` prints). The pin travels in the pod's environment, the
// same for every pod of a group, so a rank holding another policy file (a ConfigMap update half-way through)
// can refuse instead of deciding differently from its peers (docs/rollout.md).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/env.h"
#include "common/settings.h"
#include "policy/policy_loader.h"

namespace nccl_roce::policy {

inline constexpr const char* kInlinePolicyVariable = settings::kPolicyInline.name;

// The policy `env` asks for: NCCL_ROCE_POLICY_INLINE's text when set (it wins: it travels atomically with the pod
// template), else what NCCL_ROCE_POLICY names (default: the inference policy). What the plugin loads and what
// `nccl-roce doctor` checks a pin against.
std::shared_ptr<const ActivePolicy> loadRequestedPolicy(const Environment& env);

// "sha256:<64 lower-case hex>" from "sha256:<hex>" or a bare 64-digit hex (either case); nullopt otherwise.
std::optional<std::string> parsePolicyDigest(const std::string& text);

}  // namespace nccl_roce::policy

// The one identity of a policy: "sha256:<64 hex digits>". `nccl-roce policy digest` prints it, a pin
// (NCCL_ROCE_POLICY_DIGEST) names it, and the tuner's INFO line, the statistics file, the metrics labels, `policy
// lint`, `policy explain` and the doctor show it; nothing else identifies a policy (docs/rollout.md, "The policy's
// identity").
//
// It is the SHA-256 of the policy's text with CRLF line ends read as LF and the whitespace at the very end (spaces,
// tabs, line ends) dropped, so a file, NCCL_ROCE_POLICY_INLINE="$(cat file)" (the shell drops trailing newlines) and
// a YAML block scalar (`|`, `|-`, `|+`, which change only the final newlines and normalise line ends) agree.
// Everything else counts, comments and blank lines included: the identity is of the text every rank holds, it is
// computed without parsing, so every build of the plugin and of the CLI agrees on it whatever its parser knows,
// and a fitted policy's comments carry its evidence, which a new fit changes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nccl_roce::policy {

// The text the identity covers (see above).
std::string canonicalPolicyText(std::string_view text);

// "sha256:" and the hex digest of canonicalPolicyText(text).
std::string policyDigest(std::string_view text);

// A composite identity: an experiment's text followed by, per part, its name and its own identity (each arm's
// policy), so a changed arm file changes the experiment's identity too.
std::string compositeDigest(std::string_view text, const std::vector<std::pair<std::string, std::string>>& parts);

}  // namespace nccl_roce::policy

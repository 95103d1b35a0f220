// The generated arms of [experiment.explore] (docs/policy-format.md, "Exploration"): their names, the rule each
// puts before the base arm's rules, and their policies. Outside the explored calls a generated arm decides
// exactly as the base arm; inside, its one preference is used where NCCL offers it and NCCL's own choice stands
// where it does not (our rule semantics: a rule whose preferences are all unavailable keeps NCCL's choice).
#pragma once

#include <cstddef>
#include <string>

#include "policy/policy.h"

namespace nccl_roce::policy {

// More arms would each get too thin a share of communicators to measure.
inline constexpr size_t kMaxExploredArms = 64;
// Every generated arm holds its own copy of the base policy's rules (and a lookup per communicator shape): a
// bound on them all keeps an experiment's memory to a few tens of MiB even with a large base.
inline constexpr size_t kMaxGeneratedRules = 4 * kMaxPolicyRules;

// "explore-ring-ll", "explore-nvlstree-simple-ch16", "explore-ring-simple-chunk256k", "explore-tree-ll128-chunkx2":
// the names the policy format writes, so unique per choice.
std::string exploredArmName(const ExploredChoice& choice);
// "explore ring/ll", "explore ring/ll ch16", "explore ring/simple chunk 256K": what statistics and the profiler
// label the explored calls with.
std::string exploredRuleName(const ExploredChoice& choice);
// The rule a generated arm puts first: the explored calls, one preference, the channels, the chunk size.
Rule exploredRule(const Exploration& explore, const ExploredChoice& choice);

// The written arm whose policy the generated arms extend; null when there is none of that name.
const ExperimentArm* baseArm(const Experiment& experiment);

// Gives every generated arm its policy, once the written arms' policies are loaded: named after the arm, its
// explored rule then the base policy's rules, the base policy's [env] and evaluation. The digest covers the
// experiment file, the base policy's digest and the arm, so it changes with either file. False without a
// loaded base arm.
bool buildExploredPolicies(Experiment& experiment, const std::string& experimentText);

}  // namespace nccl_roce::policy

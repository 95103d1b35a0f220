// Writing an `ab fit` as a policy file (TOML, docs/policy-format.md): a header saying what was fitted and what
// the false discovery rate controls, then each rule preceded by its evidence per bucket (communicators and
// collectives of the control and the arm, the ratio and its interval).
#pragma once

#include <string>

#include "fleet/ab_fit.h"
#include "policy/policy.h"

namespace nccl_roce::fleet {

std::string abFitPolicyToml(const AbFit& fit);

// A fitted rule's name ("ab-allreduce-2n-ring-ll-64K..256K") and the sizes it matches: its buckets, exactly.
std::string fittedRuleName(const FittedRule& rule);
policy::ValueRange fittedRuleBytes(const FittedRule& rule);

}  // namespace nccl_roce::fleet

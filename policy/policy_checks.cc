#include "policy/policy_checks.h"

#include "policy/value_range_text.h"

namespace nccl_roce::policy {

namespace {

bool covers(const ValueRange& outer, const ValueRange& inner) {
  return outer.lo <= inner.lo && inner.hi <= outer.hi;
}

// Everything `later` matches, `earlier` matches too: with first match, `later` never fires.
bool shadows(const Rule& earlier, const Rule& later) {
  return (earlier.collectives & later.collectives) == later.collectives && covers(earlier.bytes, later.bytes) &&
         covers(earlier.nodes, later.nodes) && covers(earlier.ranks, later.ranks) &&
         covers(earlier.pipeOps, later.pipeOps) && (!earlier.regBuff || earlier.regBuff == later.regBuff);
}

std::string where(const Rule& rule) {
  return "rule at line " + std::to_string(rule.position.line) + (rule.name.empty() ? "" : " ('" + rule.name + "')");
}

}  // namespace

std::vector<PolicyError> checkPolicy(const Policy& policy, const std::vector<bool>& selectorsRead) {
  std::vector<PolicyError> errors;
  // NCCL's example CSV format passes unavailable choices to later matching rules, so overlaps are its fallbacks.
  if (policy.unavailableFallsThrough) return errors;
  auto checked = [&](size_t i) { return i >= selectorsRead.size() || selectorsRead[i]; };
  for (size_t j = 0; j < policy.rules.size(); ++j) {
    if (!checked(j)) continue;
    const Rule& later = policy.rules[j];
    for (size_t i = 0; i < j; ++i) {
      if (!checked(i)) continue;
      const Rule& earlier = policy.rules[i];
      if (shadows(earlier, later)) {
        errors.push_back({policy.source, later.position.line, later.position.column,
                          "never fires: the " + where(earlier) +
                              " matches everything it matches; move this rule above it, or narrow that one"});
        break;
      }
      if (earlier.sameSelectorsAs(later) && earlier.bytes.intersects(later.bytes)) {
        errors.push_back({policy.source, later.position.line, later.position.column,
                          "size range " + formatValueRange(later.bytes, RangeUnit::kBytes) + " overlaps " +
                              formatValueRange(earlier.bytes, RangeUnit::kBytes) + " of the " + where(earlier) +
                              " with the same selectors; make the ranges meet without overlapping (\"..64K\" "
                              "then \"64K..\")"});
        break;
      }
    }
  }
  return errors;
}

}  // namespace nccl_roce::policy

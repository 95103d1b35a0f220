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

std::vector<PolicyError> checkPolicy(const Policy& policy) {
  std::vector<PolicyError> errors;
  // NCCL's example CSV format passes unavailable choices to later matching rules, so overlaps are its fallbacks.
  if (policy.unavailableFallsThrough) return errors;
  for (size_t j = 0; j < policy.rules.size(); ++j) {
    const Rule& later = policy.rules[j];
    for (size_t i = 0; i < j; ++i) {
      const Rule& earlier = policy.rules[i];
      if (shadows(earlier, later)) {
        errors.push_back({policy.source, later.position.line, later.position.column,
                          "never fires: the " + where(earlier) + " matches everything it matches"});
        break;
      }
      if (earlier.sameSelectorsAs(later) && earlier.bytes.intersects(later.bytes)) {
        errors.push_back({policy.source, later.position.line, later.position.column,
                          "size range " + formatValueRange(later.bytes, RangeUnit::kBytes) + " overlaps " +
                              formatValueRange(earlier.bytes, RangeUnit::kBytes) + " of the " + where(earlier) +
                              " with the same selectors"});
        break;
      }
    }
  }
  return errors;
}

}  // namespace nccl_roce::policy

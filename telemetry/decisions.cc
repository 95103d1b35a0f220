#include "telemetry/decisions.h"

namespace nccl_roce::telemetry {

const char* decisionSourceName(DecisionSource source) {
  switch (source) {
    case DecisionSource::kRule:
      return "rule";
    case DecisionSource::kUnavailable:
      return "unavailable";
    case DecisionSource::kNccl:
      break;
  }
  return "nccl";
}

std::optional<DecisionSource> decisionSourceNamed(std::string_view name) {
  for (DecisionSource s : {DecisionSource::kNccl, DecisionSource::kRule, DecisionSource::kUnavailable}) {
    if (name == decisionSourceName(s)) return s;
  }
  return std::nullopt;
}

DecisionTotals totalsOf(const std::vector<DecisionCount>& decisions) {
  DecisionTotals t;
  for (const DecisionCount& d : decisions) {
    t.calls += d.count;
    if (d.source == DecisionSource::kRule) t.fromRules += d.count;
    if (d.source == DecisionSource::kUnavailable) t.unavailable += d.count;
  }
  return t;
}

}  // namespace nccl_roce::telemetry

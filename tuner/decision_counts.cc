#include "tuner/decision_counts.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace nccl_roce::tuner {

size_t DecisionCounts::DecidedHash::operator()(const Decided& d) const noexcept {
  // Within one key, decisions differ by who decided and by rule: small numbers, put past the key's fields.
  return telemetry::CellKeyHash{}(d.key) ^ static_cast<size_t>(d.rule * 4 + static_cast<int>(d.source)) << 48;
}

void DecisionCounts::record(const telemetry::CellKey& key, Source source, int rule) {
  std::lock_guard<SpinLock> lock(lock_);
  ++counts_[Decided{key, source, rule}];
}

void DecisionCounts::record(const CallInputs& call, const Decision& decision, const CostTable& table,
                            uint32_t chunkSize) {
  Source source = decision.byRule()                                       ? Source::kRule
                  : decision.outcome == Decision::Outcome::kUnavailable ? Source::kUnavailable
                                                                          : Source::kNccl;
  int algorithm = decision.algorithm, protocol = decision.protocol;
  if (decision.outcome != Decision::Outcome::kChosen && !ncclDefaultChoice(table, &algorithm, &protocol)) {
    algorithm = protocol = -1;
  }
  const bool byRule = decision.byRule();
  record(telemetry::cellKey(call.collective, call.bytes, algorithm, protocol, byRule ? decision.channels : 0,
                            byRule ? chunkSize : 0),
         source, source == Source::kNccl ? -1 : decision.rule);
}

nlohmann::ordered_json ruleName(const Policy& policy, int rule) {
  if (rule < 0 || static_cast<size_t>(rule) >= policy.rules.size()) return nullptr;
  const Rule& r = policy.rules[static_cast<size_t>(rule)];
  return r.name.empty() ? "line " + std::to_string(r.position.line) : r.name;
}

int DecisionCounts::ruleFor(int collective, int bucket, int algorithm, int protocol) const {
  std::lock_guard<SpinLock> lock(lock_);
  int best = -1;
  uint64_t bestCount = 0;
  for (const auto& [d, count] : counts_) {
    if (d.source != Source::kRule || d.key.collective != collective || d.key.bucket != bucket ||
        d.key.algorithm != algorithm || d.key.protocol != protocol) {
      continue;
    }
    if (count > bestCount) {
      bestCount = count;
      best = d.rule;
    }
  }
  return best;
}

DecisionCounts::Totals DecisionCounts::totals() const {
  std::lock_guard<SpinLock> lock(lock_);
  Totals t;
  for (const auto& [d, count] : counts_) {
    t.calls += count;
    if (d.source == Source::kRule) t.fromRules += count;
    if (d.source == Source::kUnavailable) t.unavailable += count;
  }
  return t;
}

nlohmann::ordered_json DecisionCounts::toJson(const Policy& policy) const {
  std::vector<std::pair<Decided, uint64_t>> decisions;
  {
    std::lock_guard<SpinLock> lock(lock_);
    decisions.assign(counts_.begin(), counts_.end());
  }
  std::sort(decisions.begin(), decisions.end(), [](const auto& a, const auto& b) {
    const Decided &x = a.first, &y = b.first;
    return std::tie(x.key, x.source, x.rule) < std::tie(y.key, y.source, y.rule);
  });
  Totals t;
  nlohmann::ordered_json lines = nlohmann::ordered_json::array();
  for (const auto& [d, count] : decisions) {
    t.calls += count;
    if (d.source == Source::kRule) t.fromRules += count;
    if (d.source == Source::kUnavailable) t.unavailable += count;
    nlohmann::ordered_json line;
    telemetry::writeCellKey(d.key, line);
    line["source"] = d.source == Source::kRule ? "rule" : d.source == Source::kUnavailable ? "unavailable" : "nccl";
    line["rule"] = ruleName(policy, d.rule);
    line["count"] = count;
    lines.push_back(std::move(line));
  }
  nlohmann::ordered_json out;
  out["calls"] = t.calls;
  out["from_rules"] = t.fromRules;
  out["unavailable"] = t.unavailable;
  out["decisions"] = std::move(lines);
  return out;
}

}  // namespace nccl_roce::tuner

#include "tuner/decision_counts.h"

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <utility>

namespace nccl_roce::tuner {

using telemetry::DecisionSource;

size_t DecisionCounts::DecidedHash::operator()(const Decided& d) const noexcept {
  // Within one key, decisions differ by who decided and by rule: small numbers, put past the key's fields.
  return telemetry::CellKeyHash{}(d.key) ^ static_cast<size_t>(d.rule * 4 + static_cast<int>(d.source)) << 48 ^
         static_cast<size_t>(d.arm + 1) << 40;
}

void DecisionCounts::record(const telemetry::CellKey& key, DecisionSource source, int rule, int arm) {
  std::lock_guard<SpinLock> lock(lock_);
  ++counts_[Decided{key, source, rule, arm}];
}

void DecisionCounts::record(const CallInputs& call, const Decision& decision, int algorithm, int protocol,
                            uint32_t chunkSize, int arm) {
  const bool byRule = decision.byRule();
  DecisionSource source = byRule                                                ? DecisionSource::kRule
                          : decision.outcome == Decision::Outcome::kUnavailable ? DecisionSource::kUnavailable
                                                                                : DecisionSource::kNccl;
  record(telemetry::cellKey(call.collective, call.bytes, algorithm, protocol, byRule ? decision.channels : 0,
                            byRule ? chunkSize : 0),
         source, source == DecisionSource::kNccl ? -1 : decision.rule, arm);
}

std::string ruleName(const policy::Policy& policy, int rule) {
  if (rule < 0 || static_cast<size_t>(rule) >= policy.rules.size()) return "";
  const policy::Rule& r = policy.rules[static_cast<size_t>(rule)];
  return r.name.empty() ? "line " + std::to_string(r.position.line) : r.name;
}

telemetry::DecisionTotals DecisionCounts::totals() const {
  std::lock_guard<SpinLock> lock(lock_);
  telemetry::DecisionTotals t;
  for (const auto& [d, count] : counts_) {
    t.calls += count;
    if (d.source == DecisionSource::kRule) t.fromRules += count;
    if (d.source == DecisionSource::kUnavailable) t.unavailable += count;
  }
  return t;
}

std::vector<telemetry::DecisionCount> DecisionCounts::snapshot(const DecidingPolicies& deciding) const {
  // Copied under the lock getCollInfo takes, into room made outside it: a copy that fits allocates nothing (a
  // decision holds no heap data); if the map grew past the room meanwhile, make more and copy again.
  static_assert(std::is_trivially_copyable_v<Decided>);
  std::vector<std::pair<Decided, uint64_t>> counted;
  size_t room = 64;  // what a communicator's few collectives and sizes make
  for (bool copied = false; !copied;) {
    counted.reserve(room);
    std::lock_guard<SpinLock> lock(lock_);
    room = counts_.size();
    copied = room <= counted.capacity();
    if (copied) counted.assign(counts_.begin(), counts_.end());
  }
  std::vector<telemetry::DecisionCount> out;
  out.reserve(counted.size());
  for (const auto& [d, count] : counted) {
    const bool armed = d.arm >= 0 && static_cast<size_t>(d.arm) < deciding.arms.size();
    const policy::Policy* policy =
        armed ? deciding.arms[static_cast<size_t>(d.arm)].second.get() : deciding.policy.get();
    out.push_back({d.key, d.source, policy != nullptr ? ruleName(*policy, d.rule) : std::string(),
                   armed ? deciding.arms[static_cast<size_t>(d.arm)].first : std::string(), count});
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nccl_roce::tuner

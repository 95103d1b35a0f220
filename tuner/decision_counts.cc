#include "tuner/decision_counts.h"

#include <algorithm>

#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::tuner {

namespace {

// Key layout, most significant first so that sorting keys sorts decisions: flag 1 | collective 3 | bucket 6 |
// algorithm+1 4 | protocol+1 3 | channels 7 | source 2 | rule+1 20 | unused 18.
constexpr int kCollShift = 60, kBucketShift = 54, kAlgoShift = 50, kProtoShift = 47, kChannelShift = 40,
              kSourceShift = 38, kRuleShift = 18;

// Callers pass values within range (the plugin's own decisions); the mask only keeps fields from bleeding.
uint64_t field(int value, int bits) { return static_cast<uint64_t>(static_cast<uint32_t>(value) & ((1u << bits) - 1)); }

int unpack(uint64_t key, int shift, int bits) { return static_cast<int>((key >> shift) & ((1u << bits) - 1)); }

size_t slotOf(uint64_t key, size_t mask) { return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> 32) & mask; }

}  // namespace

DecisionCounts::Lock::Lock(std::atomic_flag& flag) : flag_(flag) {
  while (flag_.test_and_set(std::memory_order_acquire)) {
  }
}
DecisionCounts::Lock::~Lock() { flag_.clear(std::memory_order_release); }

DecisionCounts::DecisionCounts() : slots_(64) {}

void DecisionCounts::record(int collective, uint64_t bytes, int algorithm, int protocol, int channels, int rule,
                           Source source) {
  // collectives beyond NCCL's five share the "unknown" value 7.
  uint64_t key = (uint64_t{1} << 63) | field(collective < 0 || collective >= kNumCollectives ? 7 : collective, 3)
                                           << kCollShift |
                 static_cast<uint64_t>(sizeBucket(bytes)) << kBucketShift | field(algorithm + 1, 4) << kAlgoShift |
                 field(protocol + 1, 3) << kProtoShift | field(channels, 7) << kChannelShift |
                 field(static_cast<int>(source), 2) << kSourceShift | field(rule + 1, 20) << kRuleShift;
  Lock lock(busy_);
  size_t mask = slots_.size() - 1;
  for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.key == key) {
      ++slot.count;
      return;
    }
    if (slot.key == 0) {
      slot = {key, 1};
      if (++used_ * 2 > slots_.size()) grow();
      return;
    }
  }
}

void DecisionCounts::record(const CallInputs& call, const Decision& decision, const CostTable& table) {
  Source source = decision.byRule()                                       ? Source::kRule
                  : decision.outcome == Decision::Outcome::kUnavailable ? Source::kUnavailable
                                                                          : Source::kNccl;
  int algorithm = decision.algorithm, protocol = decision.protocol;
  if (decision.outcome != Decision::Outcome::kChosen && !ncclDefaultChoice(table, &algorithm, &protocol)) {
    algorithm = protocol = -1;
  }
  record(call.collective, call.bytes, algorithm, protocol, decision.byRule() ? decision.channels : 0,
         source == Source::kNccl ? -1 : decision.rule, source);
}

void DecisionCounts::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key == 0) continue;
    size_t i = slotOf(s.key, mask);
    while (slots_[i].key != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void writeSizeBucket(int bucket, nlohmann::ordered_json& out) {
  uint64_t lo = bucket == 0 ? 0 : (uint64_t{1} << bucket);
  uint64_t hi = bucket >= 63 ? UINT64_MAX : (uint64_t{1} << (bucket + 1)) - 1;
  out["bucket"] = formatByteSize(lo) + "-" + (bucket >= 63 ? std::string("16E") : formatByteSize(hi + 1));
  out["size_min"] = lo;
  out["size_max"] = hi;
}

nlohmann::ordered_json ruleName(const Policy& policy, int rule) {
  if (rule < 0 || static_cast<size_t>(rule) >= policy.rules.size()) return nullptr;
  const Rule& r = policy.rules[static_cast<size_t>(rule)];
  return r.name.empty() ? "line " + std::to_string(r.position.line) : r.name;
}

int DecisionCounts::ruleFor(int collective, int bucket, int algorithm, int protocol) const {
  Lock lock(busy_);
  int best = -1;
  uint64_t bestCount = 0;
  for (const Slot& s : slots_) {
    if (s.key == 0 || static_cast<Source>(unpack(s.key, kSourceShift, 2)) != Source::kRule) continue;
    if (unpack(s.key, kCollShift, 3) != collective || unpack(s.key, kBucketShift, 6) != bucket ||
        unpack(s.key, kAlgoShift, 4) - 1 != algorithm || unpack(s.key, kProtoShift, 3) - 1 != protocol) {
      continue;
    }
    if (s.count > bestCount) {
      bestCount = s.count;
      best = unpack(s.key, kRuleShift, 20) - 1;
    }
  }
  return best;
}

DecisionCounts::Totals DecisionCounts::totals() const {
  Lock lock(busy_);
  Totals t;
  for (const Slot& s : slots_) {
    if (s.key == 0) continue;
    t.calls += s.count;
    auto source = static_cast<Source>(unpack(s.key, kSourceShift, 2));
    if (source == Source::kRule) t.fromRules += s.count;
    if (source == Source::kUnavailable) t.unavailable += s.count;
  }
  return t;
}

nlohmann::ordered_json DecisionCounts::toJson(const Policy& policy) const {
  std::vector<Slot> used;
  {
    Lock lock(busy_);
    for (const Slot& s : slots_) {
      if (s.key != 0) used.push_back(s);
    }
  }
  std::sort(used.begin(), used.end(), [](const Slot& a, const Slot& b) { return a.key < b.key; });
  Totals t = totals();
  nlohmann::ordered_json out;
  out["calls"] = t.calls;
  out["from_rules"] = t.fromRules;
  out["unavailable"] = t.unavailable;
  out["decisions"] = nlohmann::ordered_json::array();
  for (const Slot& s : used) {
    int bucket = unpack(s.key, kBucketShift, 6);
    int algorithm = unpack(s.key, kAlgoShift, 4) - 1;
    int protocol = unpack(s.key, kProtoShift, 3) - 1;
    int rule = unpack(s.key, kRuleShift, 20) - 1;
    auto source = static_cast<Source>(unpack(s.key, kSourceShift, 2));
    nlohmann::ordered_json d;
    d["collective"] = collectiveName(unpack(s.key, kCollShift, 3));
    writeSizeBucket(bucket, d);
    d["algorithm"] = algorithm >= 0 ? nlohmann::ordered_json(algorithmName(algorithm)) : nlohmann::ordered_json(nullptr);
    d["protocol"] = protocol >= 0 ? nlohmann::ordered_json(protocolName(protocol)) : nlohmann::ordered_json(nullptr);
    d["channels"] = unpack(s.key, kChannelShift, 7);  // 0: NCCL decided
    d["source"] = source == Source::kRule ? "rule" : source == Source::kUnavailable ? "unavailable" : "nccl";
    d["rule"] = ruleName(policy, rule);
    d["count"] = s.count;
    out["decisions"].push_back(std::move(d));
  }
  return out;
}

}  // namespace nccl_roce::tuner

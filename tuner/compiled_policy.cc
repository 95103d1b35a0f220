#include "tuner/compiled_policy.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace nccl_roce::tuner {

namespace {
int32_t clampToInt(uint64_t value) { return value > INT32_MAX ? INT32_MAX : static_cast<int32_t>(value); }
}  // namespace

CompiledPolicy::Entry CompiledPolicy::pack(uint32_t index) {
  const Rule& r = policy_->rules[index];
  Entry e;
  e.rule = index;
  e.choiceBegin = static_cast<uint32_t>(choices_.size());
  e.choiceCount = static_cast<uint8_t>(r.choices.size() > 255 ? 255 : r.choices.size());
  for (size_t i = 0; i < e.choiceCount; ++i) {
    choices_.push_back({static_cast<int8_t>(r.choices[i].algorithm), static_cast<int8_t>(r.choices[i].protocol)});
  }
  e.pipeLo = clampToInt(r.pipeOps.lo);
  e.pipeHi = clampToInt(r.pipeOps.hi);
  e.regBuff = r.regBuff ? static_cast<int8_t>(*r.regBuff) : int8_t{-1};
  e.channels = static_cast<uint8_t>(r.channels);
  return e;
}

// A sweep over the size axis: rules enter the active set at their lower bound and leave after their upper bound;
// each segment lists the active rules in policy order. With our own format the list stops at the first rule
// that has no pipeOps/regBuff condition, since it always matches and nothing after it can be reached; so the
// cost is O(n log n) plus the entries written, not segments x rules.
CompiledPolicy::CompiledPolicy(std::shared_ptr<const Policy> policy, uint64_t nRanks, uint64_t nNodes)
    : policy_(std::move(policy)) {
  const auto& rules = policy_->rules;
  std::vector<uint32_t> live;
  for (uint32_t i = 0; i < rules.size(); ++i) {
    if (rules[i].ranks.contains(nRanks) && rules[i].nodes.contains(nNodes)) live.push_back(i);
  }
  applicable_ = live.size();
  for (int c = 0; c < kNumCollectives; ++c) {
    std::vector<uint32_t> forColl;
    for (uint32_t i : live) {
      if (rules[i].collectives & (1u << c)) forColl.push_back(i);
    }
    Index& index = index_[c];
    std::vector<uint64_t> starts{0};
    for (uint32_t i : forColl) {
      starts.push_back(rules[i].bytes.lo);
      if (rules[i].bytes.hi != UINT64_MAX) starts.push_back(rules[i].bytes.hi + 1);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    auto segmentOf = [&](uint64_t start) {
      return static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), start) - starts.begin());
    };
    std::vector<std::vector<uint32_t>> entering(starts.size()), leaving(starts.size());
    for (uint32_t i : forColl) {
      entering[segmentOf(rules[i].bytes.lo)].push_back(i);
      if (rules[i].bytes.hi != UINT64_MAX) leaving[segmentOf(rules[i].bytes.hi + 1)].push_back(i);
    }
    std::set<uint32_t> active;  // ordered by rule index: policy order
    for (size_t k = 0; k < starts.size(); ++k) {
      for (uint32_t i : leaving[k]) active.erase(i);
      active.insert(entering[k].begin(), entering[k].end());
      index.offsets.push_back(static_cast<uint32_t>(entries_.size()));
      size_t taken = 0;
      for (uint32_t i : active) {
        if (taken == kMaxCandidatesPerSegment) {
          truncated_ = true;
          break;
        }
        entries_.push_back(pack(i));
        ++taken;
        bool unconditional = rules[i].pipeOps.isAll() && !rules[i].regBuff;
        if (unconditional && !policy_->unavailableFallsThrough) break;
      }
    }
    index.offsets.push_back(static_cast<uint32_t>(entries_.size()));
    index.segments = starts.size();
    while ((size_t{1} << index.depth) < starts.size()) ++index.depth;
    index.starts = std::move(starts);
    index.starts.resize(size_t{1} << index.depth, UINT64_MAX);
  }
}

std::shared_ptr<const CompiledPolicy> compiledPolicyFor(const std::shared_ptr<const Policy>& policy, uint64_t nRanks,
                                                        uint64_t nNodes) {
  // Keyed by the policy's address: each entry holds the policy (through CompiledPolicy), so it stays valid.
  using Key = std::tuple<const Policy*, uint64_t, uint64_t>;
  constexpr size_t kMaxShapes = 4096;  // beyond this (never seen in practice) compile per communicator
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const CompiledPolicy>> cache;
  Key key{policy.get(), nRanks, nNodes};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  // Built outside the lock so communicators of other shapes need not wait; a concurrent twin is discarded.
  auto compiled = std::make_shared<const CompiledPolicy>(policy, nRanks, nNodes);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kMaxShapes) return compiled;
  return cache.emplace(key, std::move(compiled)).first->second;
}

}  // namespace nccl_roce::tuner

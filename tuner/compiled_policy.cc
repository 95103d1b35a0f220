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

// A sweep over the size axis: rules enter the active set at their lower bound and leave after their upper bound;
// each segment lists the active rules in policy order. With our own format the list stops at the first rule
// that has no pipeOps/regBuff condition, since it always matches and nothing after it can be reached; so the
// cost is O(n log n) plus the entries written, not segments x rules.
CompiledPolicy::CompiledPolicy(std::shared_ptr<const Policy> policy, uint64_t nRanks, uint64_t nNodes)
    : policy_(std::move(policy)), fallsThrough_(policy_->unavailableFallsThrough) {
  const auto& rules = policy_->rules;
  std::vector<uint32_t> live;
  size_t choiceCount = 0;
  for (uint32_t i = 0; i < rules.size(); ++i) {
    if (rules[i].ranks.contains(nRanks) && rules[i].nodes.contains(nNodes)) {
      live.push_back(i);
      choiceCount += std::min<size_t>(rules[i].choices.size(), 255);
    }
  }
  applicable_ = live.size();
  // Each live rule's preferences, once; entries point into this array, which is never resized afterwards.
  std::vector<uint32_t> choiceOffsets(rules.size(), 0);
  choices_.reserve(choiceCount);
  for (uint32_t i : live) {
    choiceOffsets[i] = static_cast<uint32_t>(choices_.size());
    for (size_t k = 0; k < std::min<size_t>(rules[i].choices.size(), 255); ++k) {
      choices_.push_back({static_cast<int8_t>(rules[i].choices[k].algorithm),
                          static_cast<int8_t>(rules[i].choices[k].protocol)});
    }
  }
  for (int c = 0; c < kNumCollectives; ++c) build(live, c, choiceOffsets);
  // entries_ is complete: turn the offsets parked in the segments into pointers.
  for (int c = 0; c < kNumCollectives; ++c) {
    for (Segment& segment : segments_[c]) {
      segment.begin = entries_.data() + reinterpret_cast<uintptr_t>(segment.begin);
      segment.end = entries_.data() + reinterpret_cast<uintptr_t>(segment.end);
    }
    index_[c].segments = segments_[c].data();
  }
}

void CompiledPolicy::build(const std::vector<uint32_t>& live, int collective,
                           const std::vector<uint32_t>& choiceOffsets) {
  const auto& rules = policy_->rules;
  std::vector<uint32_t> forColl;
  for (uint32_t i : live) {
    if (rules[i].collectives & (1u << collective)) forColl.push_back(i);
  }
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
  // While entries_ still grows, segments hold offsets into it in place of pointers (fixed up by the caller).
  auto offset = [](size_t value) { return reinterpret_cast<const Entry*>(static_cast<uintptr_t>(value)); };
  std::vector<Segment>& segments = segments_[collective];
  std::set<uint32_t> active;  // ordered by rule index: policy order
  for (size_t k = 0; k < starts.size(); ++k) {
    for (uint32_t i : leaving[k]) active.erase(i);
    active.insert(entering[k].begin(), entering[k].end());
    size_t first = entries_.size();
    for (uint32_t i : active) {
      if (entries_.size() - first == kMaxCandidatesPerSegment) {
        truncated_ = true;
        break;
      }
      const Rule& r = rules[i];
      Entry e;
      e.pipeLo = clampToInt(r.pipeOps.lo);
      e.pipeHi = clampToInt(r.pipeOps.hi);
      e.choices = choices_.data() + choiceOffsets[i];
      e.rule = i;
      e.choiceCount = static_cast<uint8_t>(std::min<size_t>(r.choices.size(), 255));
      e.regBuff = r.regBuff ? static_cast<int8_t>(*r.regBuff) : int8_t{-1};
      e.channels = static_cast<uint8_t>(r.channels);
      entries_.push_back(e);
      bool unconditional = r.pipeOps.isAll() && !r.regBuff;
      if (unconditional && !fallsThrough_) break;
    }
    segments.push_back({starts[k], offset(first), offset(entries_.size())});
  }
  int depth = 0;
  while ((size_t{1} << depth) < segments.size()) ++depth;
  // Padding: copies of the last segment that start at UINT64_MAX. Only bytes == UINT64_MAX reaches them, and
  // it belongs to the last segment.
  Segment last = segments.back();
  last.start = UINT64_MAX;
  segments.resize(size_t{1} << depth, last);
  index_[collective].depth = depth;
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

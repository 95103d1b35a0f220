#include "tuner/compiled_policy.h"

#include <algorithm>

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
    index.segments = starts.size();
    while ((size_t{1} << index.depth) < starts.size()) ++index.depth;
    index.starts = starts;
    index.starts.resize(size_t{1} << index.depth, UINT64_MAX);
    for (uint64_t start : starts) {
      index.offsets.push_back(static_cast<uint32_t>(entries_.size()));
      size_t taken = 0;
      for (uint32_t i : forColl) {
        const Rule& r = rules[i];
        if (!r.bytes.contains(start)) continue;
        entries_.push_back(pack(i));
        // With our own format the first matching rule decides; a rule with no pipeOps/regBuff condition always
        // matches here, so nothing after it can be reached.
        bool unconditional = r.pipeOps.isAll() && !r.regBuff;
        if (++taken >= kMaxCandidatesPerSegment || (unconditional && !policy_->unavailableFallsThrough)) break;
      }
    }
    index.offsets.push_back(static_cast<uint32_t>(entries_.size()));
  }
}


}  // namespace nccl_roce::tuner

#include "tuner/compiled_policy.h"

#include <algorithm>

namespace nccl_roce::tuner {

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
    index.starts = starts;
    for (uint64_t start : starts) {
      index.offsets.push_back(static_cast<uint32_t>(flat_.size()));
      size_t taken = 0;
      for (uint32_t i : forColl) {
        const Rule& r = rules[i];
        if (!r.bytes.contains(start)) continue;
        flat_.push_back(i);
        // With our own format the first matching rule decides; a rule with no pipeOps/regBuff condition always
        // matches here, so nothing after it can be reached.
        bool unconditional = r.pipeOps.isAll() && !r.regBuff;
        if (++taken >= kMaxCandidatesPerSegment || (unconditional && !policy_->unavailableFallsThrough)) break;
      }
    }
    index.offsets.push_back(static_cast<uint32_t>(flat_.size()));
  }
}

CompiledPolicy::Candidates CompiledPolicy::candidates(int collective, uint64_t bytes) const {
  if (collective < 0 || collective >= kNumCollectives) return {nullptr, nullptr};
  const Index& index = index_[collective];
  // Last start <= bytes (starts[0] == 0, so there always is one): branch-light binary search.
  const uint64_t* base = index.starts.data();
  size_t n = index.starts.size();
  while (n > 1) {
    size_t half = n / 2;
    base = (base[half] <= bytes) ? base + half : base;
    n -= half;
  }
  size_t segment = static_cast<size_t>(base - index.starts.data());
  const uint32_t* flat = flat_.data();
  return {flat + index.offsets[segment], flat + index.offsets[segment + 1]};
}

}  // namespace nccl_roce::tuner

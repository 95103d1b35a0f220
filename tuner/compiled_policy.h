// A policy narrowed to one communicator and indexed for getCollInfo. nRanks and nNodes never change for a
// communicator, so rules that cannot match it are dropped at init; the rest are indexed per collective by
// size segments, each listing the rules that may match there in policy order. A call then costs one binary
// search over the segment starts plus a check of pipeOps/regBuff on the first candidate(s): barely more for
// 1000 rules than for 10.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tuner/nccl_names.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

class CompiledPolicy {
 public:
  // Fallback chains longer than this (only NCCL-CSV policies with deep overlaps) end in NCCL's own choice.
  static constexpr size_t kMaxCandidatesPerSegment = 64;

  CompiledPolicy(std::shared_ptr<const Policy> policy, uint64_t nRanks, uint64_t nNodes);

  struct Candidates {
    const uint32_t* begin;
    const uint32_t* end;
  };
  // Rules (indices into policy().rules) whose collective and size match; pipeOps and regBuff still to check.
  Candidates candidates(int collective, uint64_t bytes) const;

  const Policy& policy() const { return *policy_; }
  const Rule& rule(uint32_t index) const { return policy_->rules[index]; }
  size_t applicableRules() const { return applicable_; }  // rules that can match this communicator

 private:
  struct Index {
    std::vector<uint64_t> starts;   // segment k covers [starts[k], starts[k+1]) bytes
    std::vector<uint32_t> offsets;  // its candidates are flat_[offsets[k], offsets[k+1])
  };
  std::shared_ptr<const Policy> policy_;
  Index index_[kNumCollectives];
  std::vector<uint32_t> flat_;
  size_t applicable_ = 0;
};

}  // namespace nccl_roce::tuner

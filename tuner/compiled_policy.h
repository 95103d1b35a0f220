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

  // What getCollInfo needs of a rule, packed so a call touches one cache line per candidate.
  struct Entry {
    uint32_t rule;         // index into policy().rules
    uint32_t choiceBegin;  // its preferences: choices()[choiceBegin, choiceBegin + choiceCount)
    int32_t pipeLo;        // numPipeOps range, inclusive, clamped to int
    int32_t pipeHi;
    uint8_t choiceCount;
    int8_t regBuff;        // -1: any
    uint8_t channels;
    uint8_t unused = 0;
    bool matches(int pipeOps, int regBuffValue) const {
      return pipeOps >= pipeLo && pipeOps <= pipeHi && (regBuff < 0 || regBuff == (regBuffValue != 0));
    }
  };
  struct PackedChoice {
    int8_t algorithm;
    int8_t protocol;
  };
  struct Candidates {
    const Entry* begin;
    const Entry* end;
  };
  // Rules whose collective and size match, in policy order; pipeOps and regBuff still to check (Entry::matches).
  Candidates candidates(int collective, uint64_t bytes) const;
  const PackedChoice* choices() const { return choices_.data(); }

  const Policy& policy() const { return *policy_; }
  const Rule& rule(uint32_t index) const { return policy_->rules[index]; }
  size_t applicableRules() const { return applicable_; }  // rules that can match this communicator

 private:
  struct Index {
    // Segment k covers [starts[k], starts[k+1]) bytes. Padded with UINT64_MAX to a power of two (2^depth) so
    // the search is a fixed, unrolled sequence of depth halvings (docs/performance.md).
    std::vector<uint64_t> starts;
    size_t segments = 0;
    int depth = 0;
    std::vector<uint32_t> offsets;  // its candidates are entries_[offsets[k], offsets[k+1])
  };
  Entry pack(uint32_t rule);

  std::shared_ptr<const Policy> policy_;
  Index index_[kNumCollectives];
  std::vector<Entry> entries_;
  std::vector<PackedChoice> choices_;
  size_t applicable_ = 0;
};

// Inline: it is most of what a getCollInfo call costs.
// One halving step of the search: move up by `step` when that start is still <= bytes.
#define NCCL_ROCE_HALVE(step)                                         \
  case step: {                                                        \
    const uint64_t* probe = base + (size_t{1} << ((step) - 1));       \
    base = *probe <= bytes ? probe : base; /* a conditional move */   \
  }                                                                   \
    [[fallthrough]]

inline CompiledPolicy::Candidates CompiledPolicy::candidates(int collective, uint64_t bytes) const {
  if (static_cast<unsigned>(collective) >= static_cast<unsigned>(kNumCollectives)) return {nullptr, nullptr};
  const Index& index = index_[collective];
  // The last start <= bytes (starts[0] == 0, so there always is one).
  const uint64_t* base = index.starts.data();
  switch (index.depth) {
    NCCL_ROCE_HALVE(24);
    NCCL_ROCE_HALVE(23);
    NCCL_ROCE_HALVE(22);
    NCCL_ROCE_HALVE(21);
    NCCL_ROCE_HALVE(20);
    NCCL_ROCE_HALVE(19);
    NCCL_ROCE_HALVE(18);
    NCCL_ROCE_HALVE(17);
    NCCL_ROCE_HALVE(16);
    NCCL_ROCE_HALVE(15);
    NCCL_ROCE_HALVE(14);
    NCCL_ROCE_HALVE(13);
    NCCL_ROCE_HALVE(12);
    NCCL_ROCE_HALVE(11);
    NCCL_ROCE_HALVE(10);
    NCCL_ROCE_HALVE(9);
    NCCL_ROCE_HALVE(8);
    NCCL_ROCE_HALVE(7);
    NCCL_ROCE_HALVE(6);
    NCCL_ROCE_HALVE(5);
    NCCL_ROCE_HALVE(4);
    NCCL_ROCE_HALVE(3);
    NCCL_ROCE_HALVE(2);
    NCCL_ROCE_HALVE(1);
    default:
      break;
  }
  size_t segment = static_cast<size_t>(base - index.starts.data());
  // bytes == UINT64_MAX also passes the padding; it belongs to the last real segment.
  if (segment >= index.segments) segment = index.segments - 1;
  const Entry* entries = entries_.data();
  return {entries + index.offsets[segment], entries + index.offsets[segment + 1]};
}
#undef NCCL_ROCE_HALVE

}  // namespace nccl_roce::tuner

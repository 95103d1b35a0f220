// A policy narrowed to one communicator shape and indexed for getCollInfo. nRanks and nNodes never change for
// a communicator, so rules that cannot match it are dropped when it is built; the rest are indexed per
// collective by size segments, each listing the rules that may match there in policy order. A call then costs
// one binary search over the segment starts plus a check of pipeOps/regBuff on the first candidate(s): barely
// more for 1000 rules than for 10. Immutable once built: communicators of one shape share it
// (compiledPolicyFor).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tuner/nccl_names.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

class CompiledPolicy {
 public:
  // At most this many rules are considered for one call (only rules with pipe_ops/reg_buff selectors, or
  // NCCL-CSV fallback chains, stack up); later ones are dropped and truncated() says so.
  static constexpr size_t kMaxCandidatesPerSegment = 64;

  CompiledPolicy(std::shared_ptr<const Policy> policy, uint64_t nRanks, uint64_t nNodes);
  CompiledPolicy(const CompiledPolicy&) = delete;  // index_ points into segments_
  CompiledPolicy& operator=(const CompiledPolicy&) = delete;

  struct PackedChoice {
    int8_t algorithm;  // -1: the cheapest NCCL offers with the protocol
    int8_t protocol;   // -1: the cheapest NCCL offers with the algorithm
  };
  // What getCollInfo needs of a rule, packed so a call touches one cache line per candidate.
  struct Entry {
    int32_t pipeLo;                // numPipeOps range, inclusive, clamped to int
    int32_t pipeHi;
    const PackedChoice* choices;   // its preferences, choiceCount of them
    uint32_t rule;                 // index into policy().rules
    uint8_t choiceCount;
    int8_t regBuff;                // -1: any
    uint8_t channels;
    bool matches(int pipeOps, int regBuffValue) const {
      return pipeOps >= pipeLo && pipeOps <= pipeHi && (regBuff < 0 || regBuff == (regBuffValue != 0));
    }
  };
  struct Candidates {
    const Entry* begin;
    const Entry* end;
  };
  // Rules whose collective and size match, in policy order; pipeOps and regBuff still to check (Entry::matches).
  Candidates candidates(int collective, uint64_t bytes) const;

  const Policy& policy() const { return *policy_; }
  const Rule& rule(uint32_t index) const { return policy_->rules[index]; }
  // NCCL's CSV semantics: a matching rule whose preferences are all unavailable passes the call on.
  bool unavailableFallsThrough() const { return fallsThrough_; }
  size_t applicableRules() const { return applicable_; }  // rules that can match this communicator
  bool truncated() const { return truncated_; }  // some call had more than kMaxCandidatesPerSegment candidates

 private:
  // Segment k covers [start_k, start_k+1) bytes; its candidates are [begin, end). Each collective's segments
  // are padded to a power of two (2^depth) with copies of the last one starting at UINT64_MAX, so the search is
  // a fixed, unrolled sequence of depth halvings that needs no bounds check (docs/performance.md).
  struct Segment {
    uint64_t start;
    const Entry* begin;
    const Entry* end;
  };
  struct Index {
    const Segment* segments = nullptr;  // segments_[collective].data()
    int depth = 0;
  };
  void build(const std::vector<uint32_t>& live, int collective, const std::vector<uint32_t>& choiceOffsets);

  std::shared_ptr<const Policy> policy_;
  bool fallsThrough_ = false;
  Index index_[kNumCollectives];
  std::vector<Segment> segments_[kNumCollectives];
  std::vector<Entry> entries_;        // filled before any Segment or Entry points into it, then never resized
  std::vector<PackedChoice> choices_;
  size_t applicable_ = 0;
  bool truncated_ = false;
};

// Inline: it is most of what a getCollInfo call costs.
// One halving step of the search: move up by `step` segments when that one still starts at or below bytes.
#define NCCL_ROCE_HALVE(step)                                             \
  case step: {                                                            \
    const Segment* probe = base + (size_t{1} << ((step) - 1));            \
    base = probe->start <= bytes ? probe : base; /* a conditional move */ \
  }                                                                       \
    [[fallthrough]]

__attribute__((always_inline)) inline CompiledPolicy::Candidates CompiledPolicy::candidates(int collective,
                                                                                          uint64_t bytes) const {
  if (static_cast<unsigned>(collective) >= static_cast<unsigned>(kNumCollectives)) return {nullptr, nullptr};
  const Index& index = index_[collective];
  // The last segment starting at or below bytes (the first starts at 0, so there always is one).
  const Segment* base = index.segments;
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
  return {base->begin, base->end};
}
#undef NCCL_ROCE_HALVE

// The compiled lookup for (policy, nRanks, nNodes), built once per process and shared: MoE serving creates
// hundreds of communicators, most of them of a few shapes. Thread-safe.
std::shared_ptr<const CompiledPolicy> compiledPolicyFor(const std::shared_ptr<const Policy>& policy, uint64_t nRanks,
                                                        uint64_t nNodes);

}  // namespace nccl_roce::tuner

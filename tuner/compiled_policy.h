// A policy narrowed to one communicator shape and indexed by collective and size, for getCollInfo. nRanks and
// nNodes never change for a communicator, so rules that cannot match it are dropped when it is built. The rest
// are indexed per collective by size segments: segment k covers [start_k, start_k+1) bytes and lists, in policy
// order, the rules whose collective and size range match there. A call is one binary search over the segment
// starts, then a check of pipeOps/regBuff (ruleMatchesCall) on the listed rules. Immutable once built, so the
// communicators of one shape can share one (the plugin's process context keeps them).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "policy/policy.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::tuner {

// The rule indices a lookup found, in policy order.
struct RuleIndices {
  const uint32_t* first = nullptr;
  const uint32_t* last = nullptr;
  const uint32_t* begin() const { return first; }
  const uint32_t* end() const { return last; }
  size_t size() const { return static_cast<size_t>(last - first); }
};

class CompiledPolicy {
 public:
  // At most this many rules are listed for one segment (only rules with pipe_ops/reg_buff selectors, or
  // NCCL-CSV fallback chains, stack up); later ones are dropped and truncated() says so.
  static constexpr size_t kMaxCandidatesPerSegment = 64;

  CompiledPolicy(std::shared_ptr<const policy::Policy> policy, uint64_t nRanks, uint64_t nNodes);

  // The rules whose collective and size match, in policy order; pipeOps and regBuff are still to be checked
  // (ruleMatchesCall). A collective outside NCCL's five finds none.
  RuleIndices candidates(int collective, uint64_t bytes) const;

  const policy::Policy& policy() const { return *policy_; }
  const policy::Rule& rule(uint32_t index) const { return policy_->rules[index]; }
  // NCCL's CSV semantics: a matching rule whose preferences are all unavailable passes the call on.
  bool unavailableFallsThrough() const { return policy_->unavailableFallsThrough; }
  size_t applicableRules() const { return applicable_; }  // rules that can match this communicator
  bool truncated() const { return truncated_; }           // some segment had more than kMaxCandidatesPerSegment rules

 private:
  // One collective's segments: starts ascending (the first is 0), padded to a power of two with UINT64_MAX and the
  // last segment's list, so that the search halves a power-of-two step with no bound to check (every tuner call
  // runs it: docs/performance.md); segment k lists ruleIndices_[lists[k].first, lists[k].last).
  struct Range {
    uint32_t first = 0, last = 0;
  };
  struct Segments {
    std::vector<uint64_t> starts;
    std::vector<Range> lists;  // one per start
  };
  void index(const std::vector<uint32_t>& live, int collective);

  std::shared_ptr<const policy::Policy> policy_;
  Segments segments_[telemetry::kNumCollectives];
  std::vector<uint32_t> ruleIndices_;
  size_t applicable_ = 0;
  bool truncated_ = false;
};

// Whether a rule whose collective and size match also matches the call's pipeOps and regBuff.
inline bool ruleMatchesCall(const policy::Rule& rule, int pipeOps, int regBuff) {
  // A negative pipeOps (NCCL never passes one) wraps to a huge value: only ranges open at the top match it.
  return rule.pipeOps.contains(static_cast<uint64_t>(pipeOps)) && (!rule.regBuff || *rule.regBuff == (regBuff != 0));
}

}  // namespace nccl_roce::tuner

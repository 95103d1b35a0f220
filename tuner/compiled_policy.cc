#include "tuner/compiled_policy.h"

#include <algorithm>
#include <set>

namespace nccl_roce::tuner {

namespace {

// Where a rule's size range starts and where it stops (one past its upper bound; none when open at the top).
bool hasEnd(const policy::Rule& rule) {
  return rule.bytes.hi != UINT64_MAX;
}

std::vector<uint64_t> segmentStarts(const std::vector<policy::Rule>& rules,
                                    const std::vector<uint32_t>& forCollective) {
  std::vector<uint64_t> starts{0};
  for (uint32_t i : forCollective) {
    starts.push_back(rules[i].bytes.lo);
    if (hasEnd(rules[i])) starts.push_back(rules[i].bytes.hi + 1);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

}  // namespace

CompiledPolicy::CompiledPolicy(std::shared_ptr<const policy::Policy> policy, uint64_t nRanks, uint64_t nNodes)
    : policy_(std::move(policy)) {
  std::vector<uint32_t> live;
  for (uint32_t i = 0; i < policy_->rules.size(); ++i) {
    const policy::Rule& rule = policy_->rules[i];
    if (rule.ranks.contains(nRanks) && rule.nodes.contains(nNodes)) live.push_back(i);
  }
  applicable_ = live.size();
  for (int c = 0; c < telemetry::kNumCollectives; ++c) index(live, c);
}

// A sweep over the size axis: rules enter the active set at their lower bound and leave after their upper
// bound; each segment lists the active rules in policy order. With our own format a list stops at the first
// rule that has no pipeOps/regBuff condition: it always matches, so nothing after it can decide. The cost is
// O(n log n) plus the indices written, not segments x rules.
void CompiledPolicy::index(const std::vector<uint32_t>& live, int collective) {
  const std::vector<policy::Rule>& rules = policy_->rules;
  std::vector<uint32_t> forCollective;
  for (uint32_t i : live) {
    if (rules[i].collectives & (1u << collective)) forCollective.push_back(i);
  }
  Segments& segments = segments_[collective];
  segments.starts = segmentStarts(rules, forCollective);
  auto segmentOf = [&](uint64_t start) {
    return static_cast<size_t>(std::lower_bound(segments.starts.begin(), segments.starts.end(), start) -
                               segments.starts.begin());
  };
  std::vector<std::vector<uint32_t>> entering(segments.starts.size()), leaving(segments.starts.size());
  for (uint32_t i : forCollective) {
    entering[segmentOf(rules[i].bytes.lo)].push_back(i);
    if (hasEnd(rules[i])) leaving[segmentOf(rules[i].bytes.hi + 1)].push_back(i);
  }
  std::set<uint32_t> active;  // ordered by rule index: policy order
  for (size_t k = 0; k < segments.starts.size(); ++k) {
    for (uint32_t i : leaving[k]) active.erase(i);
    active.insert(entering[k].begin(), entering[k].end());
    Range list{static_cast<uint32_t>(ruleIndices_.size()), 0};
    size_t listed = 0;
    for (uint32_t i : active) {
      if (listed++ == kMaxCandidatesPerSegment) {
        truncated_ = true;
        break;
      }
      ruleIndices_.push_back(i);
      bool unconditional = rules[i].pipeOps.isAll() && !rules[i].regBuff;
      if (unconditional && !policy_->unavailableFallsThrough) break;
    }
    list.last = static_cast<uint32_t>(ruleIndices_.size());
    segments.lists.push_back(list);
  }
  size_t padded = 1;
  while (padded < segments.starts.size()) padded *= 2;
  segments.starts.resize(padded, UINT64_MAX);
  segments.lists.resize(padded, segments.lists.back());
}

RuleIndices CompiledPolicy::candidates(int collective, uint64_t bytes) const {
  if (collective < 0 || collective >= telemetry::kNumCollectives) return {};
  const Segments& segments = segments_[collective];
  // The last segment starting at or below bytes, found by steps of half, a quarter, ... of the padded count; the
  // first starts at 0, so there always is one (a padded one for bytes UINT64_MAX, listing the last segment's).
  const uint64_t* starts = segments.starts.data();
  size_t k = 0;
  for (size_t step = segments.starts.size() / 2; step > 0; step /= 2) {
    if (starts[k + step] <= bytes) k += step;
  }
  const uint32_t* list = ruleIndices_.data();
  return {list + segments.lists[k].first, list + segments.lists[k].last};
}

}  // namespace nccl_roce::tuner

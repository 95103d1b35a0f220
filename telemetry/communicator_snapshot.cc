#include "telemetry/communicator_snapshot.h"

#include <algorithm>
#include <tuple>

namespace nccl_roce::telemetry {

namespace {

// The same cell, algorithm and protocol: a timing's channels are what the kernel ran on, a decision's what the rule
// set, and timings carry no chunk size.
bool sameCellAndAlgorithm(const CellKey& a, const CellKey& b) {
  return a.collective == b.collective && a.bucket == b.bucket && a.choice.algorithm == b.choice.algorithm &&
         a.choice.protocol == b.choice.protocol;
}

// The rule decision that decided most calls of `key`'s cell and choice; nullptr when no rule decided any.
const DecisionCount* decidingRule(const CellKey& key, const std::vector<DecisionCount>& decisions) {
  const DecisionCount* best = nullptr;
  for (const DecisionCount& d : decisions) {
    if (d.source == DecisionSource::kRule && sameCellAndAlgorithm(d.key, key) &&
        (best == nullptr || d.count > best->count)) {
      best = &d;
    }
  }
  return best;
}

}  // namespace

bool PolicyIdentity::operator==(const PolicyIdentity& o) const {
  return std::tie(experiment, experimentHash, policy, policySource, policyHash, digest, arm, design) ==
         std::tie(o.experiment, o.experimentHash, o.policy, o.policySource, o.policyHash, o.digest, o.arm, o.design);
}

uint64_t CommunicatorSnapshot::cumulativeCount() const {
  uint64_t n = timings ? timings->timed() : 0;
  return decisions ? n + totalsOf(*decisions).calls : n;
}

void attributeTimings(Timings& timings, const std::vector<DecisionCount>& decisions) {
  for (KeyTimings& k : timings.keys) {
    const DecisionCount* rule = decidingRule(k.key, decisions);
    k.rule = rule != nullptr ? rule->rule : std::string();
    k.key.choice.chunkSize = rule != nullptr ? rule->key.choice.chunkSize : 0;
  }
  // Keys that differed only in chunk size before (never, as the profiler fills none) would now collide.
  std::sort(timings.keys.begin(), timings.keys.end(),
            [](const KeyTimings& a, const KeyTimings& b) { return a.key < b.key; });
  std::vector<KeyTimings> merged;
  for (KeyTimings& k : timings.keys) {
    if (!merged.empty() && merged.back().key == k.key) {
      merged.back().histogram.merge(k.histogram);
    } else {
      merged.push_back(std::move(k));
    }
  }
  timings.keys = std::move(merged);
}

}  // namespace nccl_roce::telemetry

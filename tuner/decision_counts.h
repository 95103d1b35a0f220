// Decision counts of one communicator, as the tuner keeps them on its hot path: how many calls of each collective,
// in each power-of-two size bucket, ended in each choice (algorithm, protocol, channels, chunk size: a CellKey,
// telemetry/cell_key.h), and who made it. snapshot() hands them out typed (telemetry/decisions.h), for the
// statistics file, the metrics textfile and the profiler's rule labels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/flat_map.h"
#include "common/spin_lock.h"
#include "policy/policy.h"
#include "telemetry/cell_key.h"
#include "telemetry/decisions.h"
#include "tuner/decide.h"

namespace nccl_roce::tuner {

// A rule's name in telemetry: its `name`, or "line N" of its policy file; "" for -1 or out of range.
std::string ruleName(const policy::Policy& policy, int rule);

class DecisionCounts {
 public:
  // Runs on every getCollInfo when statistics are on: a hash-map increment under the communicator's own lock
  // (NCCL serialises a communicator's calls, so it is only contended by a snapshot). rule -1: none.
  void record(const telemetry::CellKey& key, telemetry::DecisionSource source, int rule);
  // Counts one getCollInfo call: who decided, and what ran (where NCCL chose, its pick read from `table`,
  // which must be as NCCL passed it), with the chunk size the deciding rule set (ChunkSize::code(); 0: NCCL's).
  void record(const CallInputs& call, const Decision& decision, const CostTable& table, uint32_t chunkSize = 0);

  telemetry::DecisionTotals totals() const;
  // Every decision so far, rules named from `policy` (null: none), in key order.
  std::vector<telemetry::DecisionCount> snapshot(const policy::Policy* policy) const;

 private:
  struct Decided {
    telemetry::CellKey key;
    telemetry::DecisionSource source = telemetry::DecisionSource::kNccl;
    int rule = -1;
    bool operator==(const Decided& o) const { return key == o.key && source == o.source && rule == o.rule; }
  };
  struct DecidedHash {
    size_t operator()(const Decided& d) const noexcept;
  };

  mutable SpinLock lock_;
  FlatMap<Decided, uint64_t, DecidedHash> counts_;  // calls per decision
};

}  // namespace nccl_roce::tuner

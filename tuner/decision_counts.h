// Decision counts of one communicator, as the tuner keeps them on its hot path: how many calls of each collective,
// in each power-of-two size bucket, ended in each choice (algorithm, protocol, channels, chunk size: a CellKey,
// telemetry/cell_key.h), and who made it. snapshot() hands them out typed (telemetry/decisions.h), for the
// statistics file, the metrics textfile and the profiler's rule labels.
#pragma once

#include <cstdint>
#include <memory>
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

// Whose rules decide a communicator's calls: its policy, or in a switchback experiment each arm's (by arm index),
// with the arm's name.
struct DecidingPolicies {
  std::shared_ptr<const policy::Policy> policy;
  std::vector<std::pair<std::string, std::shared_ptr<const policy::Policy>>> arms;
};

class DecisionCounts {
 public:
  // Runs on every getCollInfo when statistics are on: a hash-map increment under the communicator's own lock
  // (NCCL serialises a communicator's calls, so it is only contended by a snapshot). rule -1: none; arm -1: the
  // communicator's own policy decided (no switchback).
  void record(const telemetry::CellKey& key, telemetry::DecisionSource source, int rule, int arm = -1);
  // Counts one getCollInfo call: who decided, and what NCCL runs after it (cellNcclRuns; -1: nothing it offers), with
  // the chunk size the deciding rule set (ChunkSize::code(); 0: NCCL's).
  void record(const CallInputs& call, const Decision& decision, int algorithm, int protocol, uint32_t chunkSize = 0,
              int arm = -1);

  telemetry::DecisionTotals totals() const;
  // Every decision so far, rules and arms named from `deciding`, in key order.
  std::vector<telemetry::DecisionCount> snapshot(const DecidingPolicies& deciding) const;
  // The same for a communicator one policy decides for (null: none), which the caller keeps alive.
  std::vector<telemetry::DecisionCount> snapshot(const policy::Policy* policy) const {
    return snapshot({std::shared_ptr<const policy::Policy>(std::shared_ptr<const policy::Policy>(), policy), {}});
  }

 private:
  struct Decided {
    telemetry::CellKey key;
    telemetry::DecisionSource source = telemetry::DecisionSource::kNccl;
    int rule = -1;
    int arm = -1;
    bool operator==(const Decided& o) const {
      return key == o.key && source == o.source && rule == o.rule && arm == o.arm;
    }
  };
  struct DecidedHash {
    size_t operator()(const Decided& d) const noexcept;
  };

  mutable SpinLock lock_;
  FlatMap<Decided, uint64_t, DecidedHash> counts_;  // calls per decision
};

}  // namespace nccl_roce::tuner

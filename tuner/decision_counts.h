// Decision counts of one communicator: how many calls of each collective, in each power-of-two size bucket,
// ended in each choice (algorithm, protocol, channels, chunk size: a CellKey, tuner/cell_key.h), and who made
// it. The plugin writes them into the process's statistics file when NCCL_ROCE_STATS names a path
// (plugin/telemetry_file.h).
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/flat_map.h"
#include "common/spin_lock.h"
#include "telemetry/cell_key.h"
#include "telemetry/size_bucket.h"
#include "tuner/decide.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

// A rule's name in statistics: its `name`, or "line N" of its policy file; null for -1 or out of range.
nlohmann::ordered_json ruleName(const Policy& policy, int rule);

class DecisionCounts {
 public:
  enum class Source : uint8_t {
    kNccl = 0,         // no rule decided: NCCL's own choice
    kRule = 1,         // a rule chose (algorithm/protocol, or only channels)
    kUnavailable = 2,  // a rule matched but none of its preferences was available: NCCL's own choice
  };

  // Runs on every getCollInfo when statistics are on: a hash-map increment under the communicator's own lock
  // (NCCL serialises a communicator's calls, so it is never contended). rule -1: none.
  void record(const telemetry::CellKey& key, Source source, int rule);
  // Counts one getCollInfo call: who decided, and what ran (where NCCL chose, its pick read from `table`,
  // which must be as NCCL passed it), with the chunk size the deciding rule set (ChunkSize::code(); 0: NCCL's).
  void record(const CallInputs& call, const Decision& decision, const CostTable& table, uint32_t chunkSize = 0);

  struct Totals {
    uint64_t calls = 0;
    uint64_t fromRules = 0;
    uint64_t unavailable = 0;
  };
  Totals totals() const;

  // The rule that decided most calls of this collective, size bucket, algorithm and protocol (channels aside:
  // NCCL may run fewer than a rule asked for); -1 when no rule decided any. How the profiler labels its timings.
  int ruleFor(int collective, int bucket, int algorithm, int protocol) const;

  // {"calls":..,"from_rules":..,"unavailable":..,"decisions":[{collective,bucket,size_min,size_max,algorithm,
  //  protocol,channels[,chunk_size],source,rule,count}...]}, decisions sorted by their key, then who decided.
  nlohmann::ordered_json toJson(const Policy& policy) const;

 private:
  struct Decided {
    telemetry::CellKey key;
    Source source = Source::kNccl;
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

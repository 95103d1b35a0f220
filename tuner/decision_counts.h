// Decision statistics of one communicator: how many calls of each collective, in each power-of-two size
// bucket, ended in each (algorithm, protocol, channels) choice, and who made it. The plugin writes them into
// the process's statistics file at finalize when NCCL_ROCE_STATS names a path (plugin/telemetry_file.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tuner/decide.h"
#include "tuner/policy.h"
#include "tuner/size_bucket.h"

namespace nccl_roce::tuner {

// What the statistics file says of a size bucket: {"bucket": "64K-128K", "size_min": 65536, "size_max": 131071}.
void writeSizeBucket(int bucket, nlohmann::ordered_json& out);

// A rule's name in statistics: its `name`, or "line N" of its policy file; null for -1 or out of range.
nlohmann::ordered_json ruleName(const Policy& policy, int rule);

class DecisionCounts {
 public:
  enum class Source : uint8_t {
    kNccl = 0,         // no rule decided: NCCL's own choice
    kRule = 1,         // a rule chose (algorithm/protocol, or only channels)
    kUnavailable = 2,  // a rule matched but none of its preferences was available: NCCL's own choice
  };

  DecisionCounts();

  // Runs on every getCollInfo when statistics are on: a hash-table increment under the communicator's own
  // spin lock (NCCL serialises a communicator's calls, so it is never contended). algorithm/protocol -1:
  // unknown; rule -1: none.
  void record(int collective, uint64_t bytes, int algorithm, int protocol, int channels, int rule, Source source);
  // Counts one getCollInfo call: who decided, and what ran (where NCCL chose, its pick read from `table`,
  // which must be as NCCL passed it).
  void record(const CallInputs& call, const Decision& decision, const CostTable& table);

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
  //  protocol,channels,source,rule,count}...]}, decisions sorted by collective, bucket, then choice.
  nlohmann::ordered_json toJson(const Policy& policy) const;

 private:
  struct Slot {
    uint64_t key = 0;  // 0: empty (packed keys always have bit 63 set)
    uint64_t count = 0;
  };
  struct Lock {
    explicit Lock(std::atomic_flag& flag);
    ~Lock();
    std::atomic_flag& flag_;
  };
  void grow();

  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::vector<Slot> slots_;  // open addressing, linear probing, power-of-two size, at most half full
  size_t used_ = 0;
};

}  // namespace nccl_roce::tuner

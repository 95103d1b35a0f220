// Decision statistics of one communicator: how many calls of each collective, in each power-of-two size
// bucket, ended in each (algorithm, protocol, channels) choice, and who made it. Written as JSON at finalize
// when NCCL_ROCE_STATS names a path, for joining with serving metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

// floor(log2(bytes)), 0 for 0 and 1.
int sizeBucket(uint64_t bytes);

class DecisionStats {
 public:
  enum class Source : uint8_t {
    kNccl = 0,         // no rule decided: NCCL's own choice
    kRule = 1,         // a rule chose (algorithm/protocol, or only channels)
    kUnavailable = 2,  // a rule matched but none of its preferences was available: NCCL's own choice
  };

  DecisionStats();

  // Runs on every getCollInfo when statistics are on: a hash-table increment under the communicator's own
  // spin lock (NCCL serialises a communicator's calls, so it is never contended). algorithm/protocol -1:
  // unknown; rule -1: none.
  void record(int collective, uint64_t bytes, int algorithm, int protocol, int channels, int rule, Source source);

  struct Totals {
    uint64_t calls = 0;
    uint64_t fromRules = 0;
    uint64_t unavailable = 0;
  };
  Totals totals() const;

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

// NCCL_ROCE_STATS=/data/stats -> /data/stats.<pid>.json: processes never collide.
std::string statsPathFor(const std::string& base, long pid);

// Adds one finalized communicator to this process's statistics file and rewrites it atomically, so the file
// always holds every communicator finalized so far. Each communicator is serialised once.
Status publishCommunicatorStats(const std::string& path, const nlohmann::ordered_json& communicator);

}  // namespace nccl_roce::tuner

// Decision statistics of one communicator: how many calls of each collective, in each power-of-two size
// bucket, ended in each (algorithm, protocol, channels) choice, and whether a rule or NCCL made it. Written as
// JSON at finalize when NCCL_ROCE_STATS names a path, for joining with serving metrics.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "common/status.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

// floor(log2(bytes)), 0 for 0 and 1.
int sizeBucket(uint64_t bytes);

class DecisionStats {
 public:
  // rule: index of the deciding rule, -1 when NCCL's own choice ran. algorithm/protocol -1: unknown.
  void record(int collective, uint64_t bytes, int algorithm, int protocol, int channels, int rule, bool unavailable);

  struct Totals {
    uint64_t calls = 0;
    uint64_t fromRules = 0;
    uint64_t unavailable = 0;  // a rule matched but none of its preferences was available
  };
  Totals totals() const;

  // {"calls":..,"from_rules":..,"unavailable":..,"decisions":[{collective,bucket,size_min,size_max,algorithm,
  //  protocol,channels,source,rule,count}...]}
  nlohmann::ordered_json toJson(const Policy& policy) const;

 private:
  using Key = std::tuple<int, int, int, int, int, int>;  // collective, bucket, algorithm, protocol, channels, rule
  mutable std::mutex mutex_;
  std::map<Key, uint64_t> counts_;
  Totals totals_;
};

// NCCL_ROCE_STATS=/data/stats -> /data/stats.<pid>.json: processes never collide.
std::string statsPathFor(const std::string& base, long pid);

// Adds one finalized communicator to this process's statistics file and rewrites it atomically, so the file
// always holds every communicator finalized so far.
Status publishCommunicatorStats(const std::string& path, nlohmann::ordered_json communicator);

}  // namespace nccl_roce::tuner

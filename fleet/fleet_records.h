// What `nccl-roce ab` reads from a fleet, before any analysis: one record per communicator per process (a
// statistics file holds one per communicator; an Inspector dump one per communicator and rank), with the
// timings of each collective and power-of-two size bucket as a histogram.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/log_histogram.h"

namespace nccl_roce::fleet {

// A (collective, size bucket) cell: the collective (tuner index, tuner/nccl_names.h) in the high byte, the bucket
// (floor(log2 bytes)) in the low one, so one collective's buckets are a contiguous range.
uint64_t cellOf(int collective, int bucket);
int collectiveOfCell(uint64_t cell);
int bucketOfCell(uint64_t cell);
std::string describeCell(uint64_t cell);  // "AllReduce 64K-128K"

struct CommunicatorRecord {
  std::string file;
  uint64_t commId = 0;
  int nRanks = 0, nNodes = 0;
  std::optional<int> rank;
  // From our statistics files; empty (and `fromStatistics` false) for Inspector records.
  bool fromStatistics = false;
  std::string experiment, experimentHash, arm, policy, policyHash;
  // Durations per cell, over every choice (algorithm, protocol, channels) the communicator made there.
  std::map<uint64_t, stats::LogHistogram> timings;
};

}  // namespace nccl_roce::fleet

// One process's collective timings as a textfile for Prometheus' node-exporter textfile collector, which parses
// Prometheus text format: histograms in seconds (with OpenMetrics' UNIT and EOF lines, comments to that parser)
// and a counter of dropped events. Labels follow NVIDIA's Inspector where they mean the same (collective, message_size,
// algo_proto, n_nodes, nranks, node) and add what Inspector cannot know: the experiment arm, the policy and
// the tuner rule that decided.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/timing_table.h"

namespace nccl_roce::profiler {

struct CommunicatorTimings {
  uint64_t commId = 0;
  int nNodes = 0, nRanks = 0, rank = -1;
  std::string arm, policy, policyHash;  // empty when unknown or not an experiment
  std::vector<TimingTable::Entry> entries;
  std::vector<std::string> rules;  // the tuner rule that decided each entry's key; "" for none (or none known)
  std::vector<std::pair<Drop, uint64_t>> dropped;  // non-zero counts only
};

// Bucket bounds (seconds) of the exported histograms: 1-2-5 steps from 1 us to 10 s. Coarser than the
// in-process histograms (1%), which the statistics file keeps whole.
const std::vector<double>& exportedBucketBoundsSeconds();

std::string renderOpenMetrics(const std::string& node, const std::vector<CommunicatorTimings>& communicators);

}  // namespace nccl_roce::profiler

// One process's collective timings as a textfile for Prometheus' node-exporter textfile collector, which parses
// Prometheus text format (OpenMetrics' UNIT and EOF lines are comments to that parser). Three kinds of series
// (docs/ab-testing.md, "Prometheus"):
// - what `nccl-roce ab --prometheus` decides on, per communicator and rank: per collective, size bucket and timing
//   source a summary `nccl_roce_ab_log_duration` whose _count is the collectives timed and whose _sum is the sum
//   of their log-histogram bins (the exact sufficient statistics of a geometric mean, the two integers the
//   statistics file gives `ab`), and the tuner's decisions per cell (`nccl_roce_tuner_decisions_total`, what
//   `ab fit` writes rules from), labelled by experiment, arm and policy; at most kAbSeriesPerCommunicator of them
//   per communicator and rank, the cells past that counted in `nccl_roce_ab_omitted_cells`, and the collectives
//   timed at zero (left out of the summary, as `ab` leaves them out of statistics files) in
//   `nccl_roce_ab_zero_durations_total`;
// - histograms in seconds per arm for dashboards, aggregated over the process's communicators (labels follow
//   NVIDIA's Inspector where they mean the same: collective, message_size, algo_proto, n_nodes);
// - dropped profiler events per communicator, rank and reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/timing_table.h"

namespace nccl_roce::profiler {

// One line of the tuner's decision counts (tuner/decision_counts.h) as labels: what ran and who chose it.
struct DecisionCount {
  int collective = -1, bucket = 0;
  std::string algorithm, protocol;  // "" when unknown
  int channels = 0;                 // 0: NCCL decided
  uint32_t chunkSize = 0;           // bytes; 0: NCCL's own
  std::string source;               // "rule", "nccl", "unavailable"
  std::string rule;                 // "" where NCCL decided
  uint64_t count = 0;
};

struct CommunicatorTimings {
  uint64_t commId = 0;
  int nNodes = 0, nRanks = 0, rank = -1;
  std::string experiment, experimentHash, arm, policy, policyHash;  // empty when unknown or not an experiment
  std::vector<TimingTable::Entry> entries;
  std::vector<std::string> rules;  // the tuner rule that decided each entry's key; "" for none (or none known)
  std::vector<DecisionCount> decisions;  // the tuner's, where it runs beside the profiler with statistics on
  std::vector<std::pair<Drop, uint64_t>> dropped;  // non-zero counts only
};

// Who wrote the file: the host and the process, so that processes sharing a node-exporter never write the
// same series.
struct ProcessLabels {
  std::string node;
  long pid = 0;
};

// The most `nccl_roce_ab_log_duration` and `nccl_roce_tuner_decisions_total` series one communicator's rank
// writes; with one omitted-cells gauge, one zero-durations counter and at most seven dropped-event counters, about
// 100 series in all.
inline constexpr int kAbSeriesPerCommunicator = 92;

// Bucket bounds (seconds) of the exported histograms: 1-2-5 steps from 1 us to 10 s. Coarser than the
// in-process histograms (1%), which the statistics file keeps whole.
const std::vector<double>& exportedBucketBoundsSeconds();

// "64K-128K": a size bucket as the labels name it (the statistics file's "bucket").
std::string messageSizeLabel(int bucket);

std::string renderOpenMetrics(const ProcessLabels& process, const std::vector<CommunicatorTimings>& communicators);

}  // namespace nccl_roce::profiler

// The metrics textfile's series, written and read here only (docs/ab-testing.md, "Prometheus"). A process with
// NCCL_ROCE_METRICS set writes its communicators as a textfile for Prometheus' node-exporter textfile collector,
// which parses Prometheus text format (OpenMetrics' UNIT and EOF lines are comments to that parser):
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
// - dropped profiler events per communicator, rank and reason;
// - the process's failed writes of its statistics files and of this textfile (`nccl_roce_write_failures_total`,
//   by `file`), for an alert: a failed write is one WARN in the log, and the count is what a dashboard sees.
//
// The reading side takes samples as Prometheus answers them (a name, labels, a value; fleet/prometheus_reader.cc
// asks the HTTP API for them) or as the textfile holds them (parseTextfile), and gives back per communicator rank
// what the writer put in: readAbSeries(parseTextfile(renderTextfile(x))) is x's `ab` series.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "telemetry/communicator_snapshot.h"

namespace nccl_roce::telemetry {

// Series names.
inline constexpr const char* kAbLogDuration = "nccl_roce_ab_log_duration";  // _count and _sum
inline constexpr const char* kAbLogDurationCount = "nccl_roce_ab_log_duration_count";
inline constexpr const char* kAbLogDurationSum = "nccl_roce_ab_log_duration_sum";
inline constexpr const char* kTunerDecisions = "nccl_roce_tuner_decisions_total";
inline constexpr const char* kAbOmittedCells = "nccl_roce_ab_omitted_cells";
inline constexpr const char* kAbZeroDurations = "nccl_roce_ab_zero_durations_total";
inline constexpr const char* kCollectiveDuration = "nccl_roce_collective_duration_seconds";
inline constexpr const char* kDroppedEvents = "nccl_roce_profiler_dropped_events_total";
inline constexpr const char* kWriteFailures = "nccl_roce_write_failures_total";
// A switchback's (telemetry/switchback.h): its arms and plan, and per cell and arm its paired windows.
inline constexpr const char* kSwitchbackArm = "nccl_roce_switchback_arm";
inline constexpr const char* kSwitchbackUnattributed = "nccl_roce_switchback_unattributed_total";
inline constexpr const char* kSwitchbackCaptured = "nccl_roce_switchback_captured_total";
inline constexpr const char* kSwitchbackWashedOut = "nccl_roce_switchback_washed_out_total";
inline constexpr const char* kSwitchbackPairedWindows = "nccl_roce_switchback_paired_windows_total";
inline constexpr const char* kSwitchbackPairedDiffSum = "nccl_roce_switchback_paired_diff_bins";
inline constexpr const char* kSwitchbackPairedDiffSquares = "nccl_roce_switchback_paired_diff_bins_squared";

// The labels that identify a communicator's rank on every `ab` series, and those a series adds per cell.
const std::vector<std::string>& abCommunicatorLabels();  // experiment ... n_nodes
const std::vector<std::string>& abTimingLabels();        // collective, message_size, timing_source
const std::vector<std::string>& abDecisionLabels();      // collective, message_size, algorithm ... rule

// The most `nccl_roce_ab_log_duration` and `nccl_roce_tuner_decisions_total` series one communicator's rank
// writes; with one omitted-cells gauge, one zero-durations counter and at most seven dropped-event counters, about
// 100 series in all.
inline constexpr int kAbSeriesPerCommunicator = 92;

// Who wrote the file, on every series: pods on one node share node-exporter's directory and their processes have
// the same small pids (each pod its own pid namespace), so the pod (and its namespace) tell them apart
// (docs/kubernetes.md, "Metrics").
struct ProcessLabels {
  std::string podNamespace;  // POD_NAMESPACE ("" when unset)
  std::string pod;           // POD_NAME, else the host name (a pod's host name is its name)
  std::string node;          // NODE_NAME, else the host name
  long pid = 0;
};

// Bucket bounds (seconds) of the exported histograms: 1-2-5 steps from 1 us to 10 s. Coarser than the
// in-process histograms (1%), which the statistics file keeps whole.
const std::vector<double>& exportedBucketBoundsSeconds();

// The whole textfile for these communicators (their timings attributed already).
// What a process counts over its life, not per communicator.
struct ProcessCounters {
  uint64_t statisticsWriteFailures = 0;  // NCCL_ROCE_STATS: files and directories that could not be written
  uint64_t metricsWriteFailures = 0;     // NCCL_ROCE_METRICS: this textfile, before the write that succeeded
};

std::string renderTextfile(const ProcessLabels& process, const std::vector<CommunicatorSnapshot>& communicators,
                           const ProcessCounters& counters = {});

// One sample: a series name, its labels and its value as text.
struct MetricSample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};

// The samples of a textfile in Prometheus text format (comments and blank lines skipped). kParseError naming the
// line for anything else.
StatusOr<std::vector<MetricSample>> parseTextfile(std::string_view text);

// One communicator rank's `ab` series, as written.
struct RankSeries {
  uint64_t commId = 0;
  int rank = -1, nRanks = 0, nNodes = 0;
  PolicyIdentity identity;  // experiment, experiment hash, arm, policy and its hash (no source, no digest)
  // (collective, bucket, timing source) -> collectives timed and the sum of their bins
  struct Cell {
    uint64_t count = 0, binSum = 0;
  };
  std::map<std::tuple<int, int, TimingSource>, Cell> timings;
  std::vector<DecisionCount> decisions;
  uint64_t zeroDurations = 0;
  uint64_t omittedCells = 0;
  // A switchback's (identity.design "switchback", no arm): its arms' series read as one communicator rank, each
  // arm's eager collectives (count and bin sum) and windows in `switchback->cells`; no capture rounds.
  std::optional<SwitchbackTimings> switchback;
};

// The `ab` series among `samples` (others are ignored), per communicator rank, in the order of their labels.
// kParseError naming the series for anything the writer would not have written (a count without its sum, a
// label that does not read back).
StatusOr<std::vector<RankSeries>> readAbSeries(const std::vector<MetricSample>& samples);

}  // namespace nccl_roce::telemetry

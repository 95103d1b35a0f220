// What `nccl-roce ab` reads from a fleet, before any analysis: one record per communicator per process (a
// statistics file holds one per communicator; an Inspector dump one per communicator and rank; Prometheus one
// per communicator and rank), with the timings of each collective and power-of-two size bucket as the two
// integers a geometric mean needs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "telemetry/cell_key.h"
#include "telemetry/choice.h"
#include "telemetry/decisions.h"
#include "telemetry/log_histogram.h"
#include "verdicts/paired_ratio.h"

namespace nccl_roce::fleet {

// A (collective, size bucket) cell: telemetry::cellIndex (telemetry/cell_key.h), the one encoding, as fleet's maps key
// it. Readers refuse collectives they do not know, so every cell here is valid.
uint64_t cellOf(int collective, int bucket);
int collectiveOfCell(uint64_t cell);
int bucketOfCell(uint64_t cell);
std::string describeCell(uint64_t cell);  // "AllReduce 64K-128K"

// A cell's timings as `ab` and `ab fit` use them: how many collectives, and the sum of their log-histogram bins
// (telemetry/log_histogram.h: each duration's log in steps of ln(gamma)). The geometric mean is a function of the
// two (LogHistogram::geometricMeanNs), and sums of integers are exact in any order: ranks and pods merge alike
// whether read from statistics files or from Prometheus, where they are the textfile's counters
// (telemetry/open_metrics.h).
struct CellTimings {
  uint64_t count = 0;
  uint64_t binSum = 0;

  void add(const CellTimings& other) {
    count += other.count;
    binSum += other.binSum;
  }
  static CellTimings of(const telemetry::LogHistogram& histogram) { return {histogram.count(), histogram.binSum()}; }
  std::optional<double> geometricMeanNs() const { return telemetry::LogHistogram::geometricMeanNs(count, binSum); }
};

// The clock a duration was measured with. Durations of different clocks are never pooled or compared with one
// another: a kernel's time on the GPU, the host's view of a kernel's start and stop (NCCL 2.26, or Inspector when
// it has no GPU timer) and a collective's host-side time from its start to its stop event are different measures.
enum class TimingClock { kGpu, kCpuKernel, kCpuCollective };
const char* timingClockName(TimingClock clock);  // "GPU", "CPU (kernel)", "CPU (collective)"
// The clock of a "timing_source" (ours: kernel_gpu, kernel_gpu_batch, kernel_host, and "none" for an entry that
// does not say, a GPU time) or a "coll_timing_source" (Inspector's: kernel_gpu, kernel_cpu, collective_cpu);
// nullopt for any other name: Inspector dumps' names go through this map.
std::optional<TimingClock> clockOfTimingSource(const std::string& source);
// The clock of our own timing sources (statistics files, textfile series): the host's for kKernelHost.
TimingClock clockOf(telemetry::TimingSource source);

// Durations per cell.
using CellTimingsMap = std::map<uint64_t, CellTimings>;

// Who made a tuner decision: telemetry's one vocabulary (telemetry/decisions.h).
using telemetry::DecisionSource;
using telemetry::decisionSourceName;
using telemetry::decisionSourceNamed;

// One line of a communicator's "decisions" (tuner/decision_counts.h), less its cell and count: what ran (its
// telemetry::CellKey's choice) and who chose it. `ab fit` reads from these what a winning arm's tuner did, to write
// it as a rule.
struct TunerDecision {
  telemetry::Choice choice;  // an algorithm or protocol of -1: NCCL's pick could not be read
  DecisionSource source = DecisionSource::kNccl;
  std::string rule;   // the deciding rule's name; "" where NCCL decided
  std::string arm{};  // a switchback's arm that decided; "" where one policy decides the communicator

  bool operator<(const TunerDecision& o) const {
    return std::tie(choice, source, rule, arm) < std::tie(o.choice, o.source, o.rule, o.arm);
  }
};
using DecisionCounts = std::map<TunerDecision, uint64_t>;  // calls per decision

// A switchback communicator's timings per (cell, arm) (telemetry/switchback.h), for one rank or, merged by
// fleet.h, for the communicator: its ranks timed the same collectives, so their windows are averaged, not added.
struct SwitchbackArmCell {
  uint64_t count = 0, binSum = 0, washedOut = 0;  // collectives timed, their bin sum, and those washed out
  verdicts::PairedSums paired;                    // against the reference arm, in log-histogram bins
};

// The collectives one communicator captured into CUDA graphs in one turn and cell that ran one arm
// (telemetry::CapturedTurn): what a round of turns, the unit of a replay's verdict, is made of. For one rank, or
// merged: its ranks captured the same collectives in the same turns, so their means are averaged (`ranks` of them).
struct CapturedTurnCell {
  double meanSum = 0;  // over the ranks: the mean over its positions of their mean log-histogram bins
  int ranks = 0;
  uint32_t positions = 0, washedOut = 0;  // captured collectives replayed and kept; left out (a turn's first calls)
  uint64_t count = 0, binSum = 0;         // their replays timed, over every rank, and those replays' bins
  double mean() const { return ranks > 0 ? meanSum / ranks : 0; }
};

struct SwitchbackRecord {
  std::vector<std::string> arms;  // arm 0 is the reference
  uint32_t block = 0, window = 0;
  uint32_t turnsPerRound = 0;  // 0: not reported (schema /3)
  uint64_t windows = 0, unattributed = 0;
  std::map<std::pair<uint64_t, std::string>, SwitchbackArmCell> cells;  // (cell, arm): eager collectives' windows
  // Whether its profiler told replays of captured collectives from eager ones (NCCL 2.28+, schema /4); when not,
  // the windows hold every replay too.
  bool capturesTracked = false;
  uint64_t captured = 0, capturedUntracked = 0;
  // (cell, bytes, turn, arm): bytes tell a bucket's graphs (batch sizes) apart.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, std::string>, CapturedTurnCell> turns;
};

struct CommunicatorRecord {
  std::string file;
  uint64_t commId = 0;
  int nRanks = 0, nNodes = 0;
  std::optional<int> rank;
  // From our statistics files; empty (and `fromStatistics` false) for Inspector records.
  bool fromStatistics = false;
  std::string experiment, experimentHash, arm, policy, policyHash;
  // One rank's durations per clock and cell, over every choice (algorithm, protocol, channels) made there.
  std::map<TimingClock, CellTimingsMap> timings;
  // Collectives timed at zero (below the histogram's 0.1 us floor): no collective takes that long, so the clock
  // could not resolve it; dropped from `timings` and counted here.
  uint64_t zeroDurations = 0;
  // What the tuner decided per cell (statistics files only; none for Inspector records or profiler-only
  // entries).
  std::map<uint64_t, DecisionCounts> decisions;
  // Statistics files of schema /3 name each entry ("host/pid/entry") and its state: a checkpoint of a live
  // communicator, or its final state, as of `updatedMs` (since the epoch). "" where nothing names it (schema /2,
  // Inspector): such records are never taken for another state of the same entry.
  std::string entryId;
  bool live = false;
  int64_t updatedMs = 0;
  // Decisions counted plus collectives timed in this state: what only grows while the communicator lives.
  uint64_t cumulativeCount = 0;
  // A switchback experiment's (design "switchback"): every arm ran in this communicator, in turns.
  std::string design;
  std::optional<SwitchbackRecord> switchback;
};

}  // namespace nccl_roce::fleet

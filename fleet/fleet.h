// A fleet's communicators, assembled from every process's records: the ranks of one communicator (same id, in
// files from many pods) merged into one, with its arm. The communicator is what an experiment randomises, so it
// is the unit every comparison counts.
//
// Ranks of one communicator that report different experiments, arms or policy hashes decided differently, which
// can hang a job (NVIDIA/nccl#1136): such a communicator is named in `errors` and left out; so is one whose ranks
// report different node counts (a hand-edited file: NCCL gives every rank the same). Files from different
// experiments cannot be compared at all: that is an error of the whole input.
//
// Timings come from our statistics files where a communicator has them, else from Inspector dumps (a pod that runs
// NVIDIA's Inspector cannot load our profiler, but its tuner still writes the arm): a fleet may mix both, and
// nothing is dropped without being counted in `notes`.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

// What a communicator's ranks timed in one cell with one clock.
struct CellTiming {
  CellTimings durations;  // every rank's durations, as count and bin sum (their geometric mean)
  // The communicator's collectives there: the most any one rank timed (every rank runs, and times, each of them).
  uint64_t collectives = 0;
};

enum class TimedBy { kNone, kProfiler, kInspector };

struct FleetCommunicator {
  uint64_t commId = 0;
  std::string arm, policy, policyHash;
  std::set<std::string> files;
  int records = 0;                                                // ranks (processes) merged
  int nNodes = 0;                                                 // 0: no record said
  TimedBy timedBy = TimedBy::kNone;                               // whose timings `timings` holds
  std::map<TimingClock, std::map<uint64_t, CellTiming>> timings;  // per clock and cell, over every rank
  std::map<uint64_t, DecisionCounts> decisions;                   // per cell, calls over every rank
  bool live = false;  // some rank's latest state is a checkpoint: the communicator was still running
  // A switchback's: every arm ran here; per (cell, arm), its ranks' timings merged (fleet/switchback_ranks.h).
  std::optional<SwitchbackRecord> switchback;
  int switchbackRanks = 0;
  std::map<std::string, uint64_t> callsPerArm;  // the first rank's tuner calls by arm, which every rank must match
};

// An input file, or its cut-short last record, that was not read, and why.
struct SkippedInput {
  std::string file, why;
  // An input error: something that should have been read was not (a file of neither format, a statistics file cut
  // short), so no gate passes on it. False where nothing was lost: an empty file, the last record of a dump a
  // killed process was writing (only --strict, which wants every file read whole, refuses those).
  bool error = true;
};

struct Fleet {
  std::string experiment;  // "" when no file names one
  std::vector<FleetCommunicator> communicators;
  std::vector<std::string> errors;    // communicators left out, and why
  std::vector<std::string> notes;     // what was left out or chosen, counted, and what the reader could not give
  std::vector<SkippedInput> skipped;  // filled by whoever read the files (fleet_files.h)
  int withoutArm = 0;                 // timed communicators no statistics file gave an arm (left out)
};

// The most two sources' geometric means in one cell of one communicator may differ by before a note says they
// disagree: ranks of one communicator wait for one another differently, so their kernels differ by some percent.
inline constexpr double kSourcesDisagreeBy = 0.10;

// `statistics`: records from our files (arms, decisions, and our profiler's timings); `inspector`: records from
// Inspector dumps, joined by communicator id: the timing source of communicators our profiler did not time. Of the
// records that name the same entry (a checkpoint beside the final state, an entry a kill left in a part file and
// in the main file, one file given twice) only the latest counts.
StatusOr<Fleet> assembleFleet(const std::vector<CommunicatorRecord>& statistics,
                              const std::vector<CommunicatorRecord>& inspector);

}  // namespace nccl_roce::fleet

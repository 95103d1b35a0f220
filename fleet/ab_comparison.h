// `nccl-roce ab`: each experiment arm against the control arm, per collective and size bucket and over the
// inference range, with the communicator as the unit. Arms are assigned per communicator, so one
// communicator's collectives share its placement, its GPUs and its neighbours' traffic: they are not
// independent samples. Each communicator contributes one value per cell (the geometric mean of its collectives
// there, from its merged histogram, within 1%), and every interval is the statistics core's Welch t interval on
// the logs over communicators (verdicts/unit_comparison.h). Durations of different clocks (GPU, CPU) are compared
// apart, never pooled.
//
// Error rates: a per-cell verdict, and each arm's summary, is wrong at most 1 - confidence of the time when the
// arm truly makes no difference (calibrated in tests/calibration/fleet_calibration_test.cc).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"
#include "verdicts/settings.h"
#include "verdicts/unit_comparison.h"

namespace nccl_roce::fleet {

struct AbOptions {
  std::string control = "control";
  uint64_t rangeLo = 16 << 10, rangeHi = 64 << 20;  // bytes, inclusive: the summary's range
  uint64_t minCollectives = 10;  // a communicator counts in a cell only with this many of its collectives there
  verdicts::Settings settings;
};

struct ArmComparison {
  std::string arm;
  // In a switchback, which collectives and which unit (fleet/switchback_comparison.h): "graph", replays of
  // collectives captured into CUDA graphs, a round of turns at capture the unit; "eager", the others, a window the
  // unit; "all", every timed collective in windows, where replays were not told apart. "" per communicator.
  std::string traffic;
  // Cells where the arm and the control decided exactly the same (fleet/same_choice.h): an A/A comparison.
  std::set<uint64_t> decidedAlike;
  int collective = 0;
  TimingClock clock = TimingClock::kGpu;
  int communicatorsControl = 0, communicatorsArm = 0;
  verdicts::UnitComparison cells;  // per (collective, bucket), every communicator that measured it
  // The summary over the range: the buckets at least half the communicators of each side measured, over the
  // communicators that measured all of them (`summaryControl` and `summaryArm` of each side). When that leaves a
  // side with fewer than the minimum, the summary gives no verdict and says so.
  verdicts::RangeComparison summary;
  int summaryControl = 0, summaryArm = 0;
  int leftOutOfSummary = 0;  // communicators of both sides that are not in the summary
  std::map<uint64_t, uint64_t> collectivesControl, collectivesArm;  // per cell, over the side's communicators
  // "graph": per cell, replays in rounds where the other side captured nothing there (never compared), and the
  // graphs (captured sizes) its units pair.
  std::map<uint64_t, uint64_t> unpairedControl, unpairedArm;
  std::map<uint64_t, int> graphs;
};

struct AbReport {
  std::string experiment, control;
  // "per-communicator": each communicator ran one arm and is the unit; "switchback": every communicator ran every
  // arm in turns, and the unit is what was drawn: a round of turns at capture for replays of CUDA graphs, a window
  // inside a communicator for eager collectives (fleet/switchback_comparison.h).
  std::string design = "per-communicator";
  std::map<std::string, int> communicatorsPerArm;
  std::vector<ArmComparison> comparisons;  // per arm other than the control, per collective and clock
  std::vector<std::string> errors;         // from the fleet: communicators left out, named
  std::vector<std::string> notes;
  std::vector<SkippedInput> skipped;  // from the fleet: inputs not read
  AbOptions options;
};

// kFailedPrecondition when there is nothing to compare: no communicator of the control arm, or no other arm.
StatusOr<AbReport> compareArms(const Fleet& fleet, const AbOptions& options);

}  // namespace nccl_roce::fleet

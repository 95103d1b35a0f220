// What a switchback experiment (docs/ab-testing.md, "Switchback experiments") needs the tuner and the profiler of
// one communicator to share, and what the profiler measures for it.
//
// Every communicator runs every arm, in turns of `block` tuner calls. Which arm a collective ran is known exactly
// from what it ran: the tuner notes, in the communicator's ArmMap, which arm decided each choice (algorithm,
// protocol, channels) in each size bucket; the profiler looks the choice of each timed collective up there, eager
// or replayed from a CUDA graph (a captured collective runs its capture-time choice at every replay). A choice
// that several arms decided in a bucket belongs to none: that bucket compares nothing (an A/A), and says so.
//
// What was randomised differs between the two kinds of collective, and so does the unit of their verdicts:
// - Eager collectives ask the tuner each time: the profiler cuts them into windows of `window` collectives, which
//   each hold several turns of every arm; in each window and size bucket, each arm's mean log duration minus the
//   reference arm's is one paired difference. Both arms of a window ran against the same load at the same time,
//   so drift cancels, and a window spans many collectives, so neighbouring collectives' correlation stays inside
//   it. After its arm changes, a size bucket's next `washout` collectives are left out (the carry-over).
// - A collective captured into a CUDA graph asked the tuner once, at capture, and runs that turn's choice at every
//   replay for the life of the process: its arm was drawn once, so replays repeat one measurement of one draw and
//   windows of them are no independent units. The profiler files each replay under the captured collective (the
//   capture's tuner call, known from the CollApi event NCCL starts at capture and names as the parent of every
//   replay's Coll event), and reports per turn of capture (CapturedTurn); verdicts take a round of turns, whose
//   order the schedule drew, as the unit (fleet/switchback_comparison.h, docs/statistics.md). The first `washout`
//   captured collectives of every turn are left out: where the arm changes, at a turn's start, is fixed too.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "telemetry/cell_key.h"

namespace nccl_roce::telemetry {

// Which arm decided each choice, per (collective, size bucket). The tuner notes, the profiler looks up, on their
// own threads at once: lock-free, fixed size (20 KiB), never allocates after construction.
class ArmMap {
 public:
  static constexpr int kNoArm = -1;   // no arm decided this choice (yet)
  static constexpr int kShared = -2;  // several arms decided it: its timings belong to none
  static constexpr int kMaxArms = 128;

  // `arm` decided `algorithm` x `protocol` (NCCL's indices) with `channels` asked for (0: NCCL's count) for a
  // call of `collective` in `bucket`.
  void note(int collective, int bucket, int algorithm, int protocol, int channels, int arm);
  // The arm whose choice a collective that ran `algorithm` x `protocol` on `channels` channels was: a choice
  // noted with channels 0 matches any count, one with a count only that count.
  int armOf(int collective, int bucket, int algorithm, int protocol, int channels) const;

 private:
  static constexpr int kSlots = 8;  // distinct choices per (collective, bucket); more are shared
  // A slot: bit 31 used, then algorithm (4 bits), protocol (2), channels (8), arm (8), bit 0 shared.
  std::array<std::atomic<uint32_t>, kNumCells * kSlots> slots_{};
  std::array<std::atomic<bool>, kNumCells> overflowed_{};
};

// How many tuner calls a switchback communicator has counted (tuner/switchback_turns.h). The tuner stores the count
// after each call; the profiler reads it when NCCL captures a collective into a CUDA graph: NCCL starts the
// collective's CollApi event and then, on the same thread, asks the tuner for it, so the count read then is the
// number of the call that decides it. Lock-free.
class CountedCalls {
 public:
  void store(uint64_t calls) { calls_.store(calls, std::memory_order_relaxed); }
  uint64_t load() const { return calls_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> calls_{0};
};

// How a communicator's switchback runs: its arms (index order: the written arms, then the explored ones; arm 0 is
// the reference the others are compared with), the turn, the washout and the analysis window.
struct SwitchbackPlan {
  std::vector<std::string> arms;
  uint32_t block = 0;
  uint32_t washout = 0;
  uint32_t window = 0;                        // timed collectives per analysis window
  uint32_t turnsPerRound = 1;                 // turns in a round of the schedule, whose order is drawn per round
  std::shared_ptr<const CountedCalls> calls;  // the tuner's, read at capture; null: captures are not told apart
  // Read only here: the tuner keeps the one mutable handle (plugin/communicator_tuner.h) and notes into it; the
  // profiler only looks up.
  std::shared_ptr<const ArmMap> armMap;
};

// A communicator rank's switchback timings in one (collective, size bucket) for one arm.
struct SwitchbackCell {
  int collective = 0, bucket = 0;
  int arm = 0;             // index into the plan's arms
  uint64_t count = 0;      // collectives timed (after the washout)
  uint64_t binSum = 0;     // the sum of their log-histogram bins (telemetry/log_histogram.h)
  uint64_t washedOut = 0;  // collectives left out after a change of arm
  // Against the reference arm, over the windows where both timed this cell: how many, and the sums of the
  // differences of mean bins (this arm's minus the reference's) and of their squares. None for the reference.
  uint64_t windows = 0;
  double diffSum = 0, diffSumSq = 0;

  bool operator==(const SwitchbackCell& o) const;
};

// The collectives a communicator rank captured into CUDA graphs in one turn, in one (collective, size bucket), that
// ran one arm's choice: every replay of them is timed here, and a round of turns is the unit of their verdict.
struct CapturedTurn {
  int collective = 0, bucket = 0;
  uint64_t bytes = 0;  // the collectives' size as the tuner counts it: within a bucket, which graph (batch size)
  uint64_t turn = 0;   // the capture's tuner call / block
  int arm = 0;         // index into the plan's arms
  // Captured collectives replayed and timed, and the sum over them of each one's mean log-histogram bin over its
  // replays: their mean is the turn's value, each captured collective (each position in its graph) weighing alike.
  uint32_t positions = 0;
  double meanBins = 0;
  uint64_t count = 0, binSum = 0;  // their replays timed, and the sum of those replays' bins
  uint32_t washedOut = 0;          // captured collectives left out: the first `washout` calls of the turn

  bool operator==(const CapturedTurn& o) const;
};

struct SwitchbackTimings {
  std::vector<std::string> arms;  // names, by index; arm 0 is the reference
  uint32_t block = 0, washout = 0, window = 0;
  uint32_t turnsPerRound = 0;  // 0: not reported (statistics of schema /3 and before)
  uint64_t windowsClosed = 0;
  uint64_t unattributed = 0;          // timed collectives whose choice no single arm decided
  std::vector<SwitchbackCell> cells;  // eager collectives, by collective, bucket, arm
  // Whether replays of captured collectives were told from eager ones (NCCL 2.28+, profiler v5, names a replay's
  // capture): when not, every timed collective went into the windows, replays included.
  bool capturesTracked = false;
  uint64_t captured = 0;            // collectives captured into graphs (each once, at capture)
  uint64_t capturedUntracked = 0;   // of them, past what the profiler keeps: their replays are not timed
  std::vector<CapturedTurn> turns;  // by collective, bucket, turn, arm

  bool operator==(const SwitchbackTimings& o) const;
};

// The analysis window for a switchback of `blocksPerRound` turns of `block` calls: four rounds (each holds every
// arm), within 64 and 16,384 collectives.
uint32_t switchbackWindow(uint32_t block, uint32_t blocksPerRound);

}  // namespace nccl_roce::telemetry

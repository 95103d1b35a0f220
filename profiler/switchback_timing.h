// One communicator's timings in a switchback experiment (telemetry/switchback.h), by size bucket and arm: every
// timed collective's arm comes from the tuner's ArmMap at its Coll event; after a bucket's arm changes its next
// `washout` collectives are left out; windows of `window` collectives give one paired difference per bucket and
// arm against the reference arm (arm 0). Fed by the tracker under its lock on NCCL's threads; fixed size, nothing
// allocates after construction, and every collective costs a bounded amount of work: closing a window only moves
// the window number on, and each pair folds its last window into its differences when it next times a collective
// (or, for the figures of a snapshot, outside the lock). Not thread safe: the tracker locks for it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "telemetry/cell_key.h"
#include "telemetry/switchback.h"

namespace nccl_roce::profiler {

class SwitchbackTiming {
 public:
  // (bucket, arm) pairs a communicator can hold; past them collectives are counted as unattributed.
  static constexpr int kMaxPairs = 512;
  // Pairs CollectiveTracker::timings() copies per hold of the tracker's lock (profiler/collective_tracker.cc).
  static constexpr int kPairsPerCopy = 64;

  explicit SwitchbackTiming(std::shared_ptr<const telemetry::SwitchbackPlan> plan);

  // The arm a collective of `key` (its choice and channels) ran for, or ArmMap::kNoArm / kShared.
  int armOf(const telemetry::CellKey& key) const {
    const telemetry::Choice& c = key.choice;
    return plan_->armMap->armOf(key.collective, key.bucket, c.algorithm, c.protocol, c.channels);
  }
  // One timed collective of `collective` in `bucket`, decided by `arm`, whose duration fell in histogram bin `bin`.
  void record(int collective, int bucket, int arm, int bin);

  // A window's collectives of one pair: how many, and their bins' sum.
  struct WindowSums {
    uint32_t window = UINT32_MAX;  // its number (windows closed before it, modulo 2^32); UINT32_MAX: none
    uint32_t count = 0;
    uint64_t binSum = 0;
  };
  // The reference's closed windows an arm's pair may still have to be paired with: an arm that times nothing in a
  // bucket for this many windows in a row while the reference does loses the difference of its last window there.
  static constexpr int kKeptWindows = 8;

  // The fixed-size state, copied in parts: what the snapshot's parts are.
  struct Pair {
    int16_t cell = -1;  // telemetry::cellIndex(collective, bucket)
    int16_t arm = 0;
    uint64_t count = 0, binSum = 0, washedOut = 0;
    uint64_t windows = 0;
    double diffSum = 0, diffSumSq = 0;
    WindowSums latest;                                 // the latest window it timed in, not yet paired
    std::array<WindowSums, kKeptWindows> referenceOf;  // arm 0's: its closed windows, by number modulo
  };
  int pairs() const { return used_; }
  // Copies pairs [from, from + n) into `out` (room for them reserved by the caller).
  void copyPairs(int from, int n, std::vector<Pair>* out) const;
  uint64_t windowsClosed() const { return windowsClosed_; }
  uint64_t unattributed() const { return unattributed_; }
  const std::shared_ptr<const telemetry::SwitchbackPlan>& plan() const { return plan_; }

  // The plan's figures and the pairs copied, as telemetry.
  static telemetry::SwitchbackTimings timingsOf(const telemetry::SwitchbackPlan& plan, const std::vector<Pair>& pairs,
                                                uint64_t windowsClosed, uint64_t unattributed);

 private:
  static constexpr int kIndexSize = 2048;  // open addressing over (cell, arm), a quarter full at most

  Pair* pairFor(int cell, int arm);
  // Moves `pair` to the current window, pairing the window it leaves with the reference's.
  void startWindow(Pair& pair);
  // The reference's sums of window `window` in `cell`'s pairs, if kept: its latest, or one it keeps.
  static const WindowSums* referenceWindow(const Pair* reference, uint32_t window);
  // Adds the difference of `arm`'s latest window and the reference's same window to the arm's sums.
  static void addDifference(Pair& arm, const WindowSums& reference);

  std::shared_ptr<const telemetry::SwitchbackPlan> plan_;
  std::array<Pair, kMaxPairs> pairs_{};
  std::array<int16_t, kIndexSize> index_;  // -1 empty, else a pairs_ index
  int used_ = 0;
  std::array<int16_t, telemetry::kNumCells> lastArm_;         // the arm of the cell's latest collective; -1 none yet
  std::array<uint32_t, telemetry::kNumCells> washoutLeft_{};  // collectives of the cell still to leave out
  std::array<int16_t, telemetry::kNumCells> referencePair_;   // the cell's pair of arm 0, -1 none
  uint32_t inWindow_ = 0;
  uint64_t windowsClosed_ = 0;  // also the current window's number
  uint64_t unattributed_ = 0;
};

}  // namespace nccl_roce::profiler

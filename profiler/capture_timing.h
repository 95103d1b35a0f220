// A switchback communicator's collectives captured into CUDA graphs, each timed at every replay
// (telemetry/switchback.h, "CapturedTurn"). At capture NCCL starts the collective's CollApi event and then asks the
// tuner for it on the same thread: the tuner's count of calls read then (telemetry::CountedCalls) is the number of
// the call that decides the collective, and so its turn, for the life of the graph. The captured collective gets a
// slot here, whose number its CollApi handle carries; NCCL names that handle as the parent of the Coll event of
// every replay, so each replay's time is added to its slot. A snapshot groups the slots by turn and arm
// (turnsOf, outside the tracker's lock).
//
// Slots come in chunks of kSlotsPerChunk, made at capture on the capturing thread (the tracker allocates a chunk
// before it takes its lock); a replay only finds its slot and adds to it: nothing allocates then, and every event
// costs a fixed amount of work. Not thread safe: the tracker locks for it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/timing_table.h"
#include "telemetry/switchback.h"

namespace nccl_roce::profiler {

class CaptureTiming {
 public:
  static constexpr uint32_t kSlotsPerChunk = 1024;
  static constexpr uint32_t kMaxChunks = 31;
  // Captured collectives a communicator keeps (vLLM captures 51-67 batch sizes of 65-81 all-reduces, once or twice);
  // past them captures are counted, and their replays go untimed. Below 2^15 - 128: see CollectiveTracker's record.
  static constexpr uint32_t kMaxSlots = kSlotsPerChunk * kMaxChunks;

  struct Slot {
    uint64_t call = 0;    // the tuner call that decided it at capture
    uint64_t bytes = 0;   // its size as the tuner counts it: with the cell, which graph's collectives it pairs with
    uint64_t binSum = 0;  // its replays' log-histogram bins
    uint32_t count = 0;   // its replays timed
    int16_t cell = -1;    // telemetry::cellIndex(collective, bucket)
    int8_t arm = -1;      // the arm whose choice its replays ran (telemetry::ArmMap), from the first; -1 none yet
    // The key its replays are timed under, from the first: every replay runs the captured plan, names, size,
    // choice and channels alike, so later replays skip the names and the key table.
    TimingTable::Entry* entry = nullptr;
  };
  using Chunk = std::array<Slot, kSlotsPerChunk>;  // 40 KiB

  // Whether the next capture needs a chunk made first (and one can still be added).
  bool needsChunk() const { return used_ == chunksMade_ * kSlotsPerChunk && chunksMade_ < kMaxChunks; }
  void addChunk(std::unique_ptr<Chunk> chunk);
  // A collective of `cell` and `bytes` captured now, decided by tuner call `call`: its slot, or -1 past what is kept.
  int capture(int cell, uint64_t bytes, uint64_t call);
  // Whether a replay of slot `slot`, of `cell`, that ran `arm`'s choice and is timed under `entry` is timed for the
  // slot. A slot runs one choice at every replay; a replay that shows another arm (no single arm decided it, or a
  // slot out of range) is not.
  bool replay(int slot, int cell, int arm, TimingTable::Entry* entry);
  // The entry a slot's replays are timed under once one was; nullptr before, or for a slot out of range.
  TimingTable::Entry* replayedEntry(int slot) {
    return slot >= 0 && static_cast<uint32_t>(slot) < used_ ? at(static_cast<uint32_t>(slot)).entry : nullptr;
  }
  // A replay of `slot` timed in histogram bin `bin`.
  void record(int slot, int bin);

  uint32_t slots() const { return used_; }
  uint64_t untracked() const { return untracked_; }
  // Copies slots [from, from + n) into `out` (room for them reserved by the caller).
  void copySlots(uint32_t from, uint32_t n, std::vector<Slot>* out) const;

  // The slots grouped by (collective, bucket, bytes, turn, arm), as the statistics file reports them: each slot's
  // mean bin over its replays summed per turn, the first `washout` calls of each turn left out.
  static std::vector<telemetry::CapturedTurn> turnsOf(const std::vector<Slot>& slots, uint32_t block, uint32_t washout);

 private:
  Slot& at(uint32_t slot) { return (*chunks_[slot / kSlotsPerChunk])[slot % kSlotsPerChunk]; }
  const Slot& at(uint32_t slot) const { return (*chunks_[slot / kSlotsPerChunk])[slot % kSlotsPerChunk]; }

  std::array<std::unique_ptr<Chunk>, kMaxChunks> chunks_;
  uint32_t chunksMade_ = 0;
  uint32_t used_ = 0;
  uint64_t untracked_ = 0;
};

}  // namespace nccl_roce::profiler

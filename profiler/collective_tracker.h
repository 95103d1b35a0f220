// One communicator's collectives in flight, from NCCL's Coll event to the kernel-channel stamps that time it.
//
// NCCL starts a collective's Coll event on the user's thread when it enqueues it; the proxy thread later
// starts and stops one KernelCh event per channel, each naming the collective as its parent, with the GPU's
// start and stop stamps. The collective's duration is the earliest channel start to the latest channel stop,
// recorded once every channel the collective was given has stopped. Collectives captured in a CUDA graph get
// their Coll event once, at capture, and a new round of KernelCh events at every replay, all naming the
// capture-time parent: such a record is kept ("sticky") once a second round shows it is replayed.
//
// Records live in a fixed ring, reused oldest first (sticky ones skipped); handles carry the record's
// generation (event_handle.h), so an event for a reused record is counted as dropped, never misattributed.
// Collectives of one Group event (a kernel plan) after the first share its kernel: all of them are timed as a
// batch. NCCL starts a plan's collectives right after its Group event, so only the latest group is remembered.
// Thread safety: the user's thread and NCCL's proxy thread call in concurrently; a spin lock (never held
// across anything slow) serialises them. Nothing allocates after construction except a new key's histogram.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/event_handle.h"
#include "profiler/timing_table.h"

namespace nccl_roce::profiler {

struct CollectiveInfo {
  int collective = -1;  // tuner index; -1 for collectives the tuner never sees (not timed)
  uint64_t bytes = 0;   // as the tuner counts them (x nRanks for AllGather and ReduceScatter)
  int algorithm = -1, protocol = -1;
  int channels = 0;     // channels NCCL gave it: the KernelCh events to expect per round
};

class CollectiveTracker {
 public:
  struct Config {
    uint32_t index = 0;            // this tracker's number in its handles
    uint32_t firstGeneration = 0;  // distinct per tracker, so handles of a finished tracker never match
    TimingSource source = TimingSource::kKernelGpu;
    uint32_t slots = 16384;        // collectives held at once (graph-captured ones included)
  };
  explicit CollectiveTracker(const Config& config);

  // The user's thread.
  void* startGroup();
  void* startCollective(const CollectiveInfo& info, const void* group);
  // The proxy thread. stampNs: GPU %globaltimer (or the host clock for kKernelHost trackers).
  void* startChannel(const void* parent, uint32_t channel, uint64_t stampNs);
  void stopChannel(const void* channelHandle, uint64_t stampNs);
  // Anything else NCCL hands us (an unknown event type, a stop for an event we did not start).
  void dropEvent(Drop why);

  std::vector<TimingTable::Entry> entries() const;
  uint64_t dropped(Drop why) const;
  uint32_t index() const { return config_.index; }
  TimingSource source() const { return config_.source; }

  // Memory held, for docs/performance.md: the ring and the key table (histograms come on top).
  static size_t bytesFor(uint32_t slots);

 private:
  struct Record {
    uint32_t generation = 0;
    TimingKey key;
    uint8_t expected = 1;         // channels per round
    uint8_t channelsStopped = 0;  // in this round (the bits of `stopped`, counted without a popcount call)
    bool live = false, sticky = false, completedOnce = false;
    uint64_t started = 0, stopped = 0;  // channel bit masks of the current round
    uint64_t firstStart = 0, lastStop = 0;
    stats::LogHistogram* histogram = nullptr;  // the key's, found when the collective starts (nullptr: table full)
  };
  class Lock {
   public:
    explicit Lock(std::atomic_flag& flag);
    ~Lock();

   private:
    std::atomic_flag& flag_;
  };

  Record* find(const EventHandle& h);  // nullptr when stale or foreign
  uint32_t allocate();
  void joinGroup(const void* group, uint32_t slot);
  void markBatched(Record& r);
  void finishRound(Record& r);

  Config config_;
  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::unique_ptr<Record[]> records_;
  uint32_t slots_ = 0;
  uint32_t nextRecord_ = 0, sticky_ = 0;
  std::atomic<uint32_t> groups_{0};  // Group events started (their handles' number)
  // The group of the latest collective, how many collectives it has, and its first one's record.
  const void* group_ = nullptr;
  uint32_t groupSize_ = 0, groupFirstSlot_ = 0, groupFirstGeneration_ = 0;
  TimingTable table_;
};

}  // namespace nccl_roce::profiler

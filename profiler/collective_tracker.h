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
// across anything slow) serialises what both touch: the records and the histograms. The user's thread is one
// at a time (NCCL starts a communicator's Group and Coll events where it is used, and a communicator is not
// used from two threads at once), so what only it touches (the next record, the latest group, the key table's
// keys, which it adds under the lock for the readers of entries()) it reads without the lock. Nothing
// allocates after construction except a new key's histogram.
//
// Each event has two versions. The general one (startCollective, startChannel, stopChannel) does everything,
// out of line. The try one is inline (collective_tracker_events.h), for NCCL's entry points: it handles the
// common case, and where the general one would make a call (the other thread holds the lock; a new key, a
// batch, a sticky record in the way) it gives up before changing anything and returns false, and the caller
// then calls the general one as its last act. With no call inside, an inlined event keeps its values in scratch
// registers and saves none: that and the single call level are most of what it costs less
// (docs/performance.md, Profiler).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/event_handle.h"
#include "profiler/timing_table.h"

namespace nccl_roce::profiler {

// A collective as tests and tools describe it; NCCL's events arrive as names, cached into keys (coll_name_cache.h).
struct CollectiveInfo {
  int collective = -1;  // tuner index; -1 for collectives the tuner never sees (not timed)
  uint64_t bytes = 0;   // as the tuner counts them (x nRanks for AllGather and ReduceScatter)
  int algorithm = -1, protocol = -1;
  int channels = 0;     // channels NCCL gave it: the KernelCh events to expect per round
};
// Its TimingKey::packed() with the source left 0 (the tracker adds its own); 0 when it is not timed.
uint64_t collectiveKey(const CollectiveInfo& info);

class CollectiveTracker {
 public:
  struct Config {
    uint32_t index = 0;            // this tracker's number in its handles
    uint32_t firstGeneration = 0;  // distinct per tracker, so handles of a finished tracker never match
    TimingSource source = TimingSource::kKernelGpu;
    uint32_t slots = 16384;        // collectives held at once (graph-captured ones included); a power of two
  };
  explicit CollectiveTracker(const Config& config);

  // The user's thread. key: TimingKey::packed() with the source 0 (its channels are the KernelCh events to
  // expect per round); 0 for a collective that is not timed, which gets nullptr (NCCL then sends no children).
  void* startGroup();
  void* startCollective(uint64_t key, const void* group);
  void* startCollective(const CollectiveInfo& info, const void* group) {
    return startCollective(collectiveKey(info), group);
  }
  // The proxy thread. stampNs: GPU %globaltimer (or the host clock for kKernelHost trackers).
  void* startChannel(const void* parent, uint32_t channel, uint64_t stampNs);
  void stopChannel(const void* channelHandle, uint64_t stampNs);
  // Anything else NCCL hands us (an unknown event type, a stop for an event we did not start).
  void dropEvent(Drop why);

  // The try versions (see the top): true when done, with `handle` set; false when nothing was done.
  bool tryStartCollective(uint64_t key, const void* group, void*& handle);
  bool tryStartChannel(const void* parent, uint32_t channel, uint64_t stampNs, void*& handle);
  bool tryStopChannel(const void* channelHandle, uint64_t stampNs);

  std::vector<TimingTable::Entry> entries() const;
  uint64_t dropped(Drop why) const;
  uint32_t index() const { return config_.index; }
  TimingSource source() const { return config_.source; }

  // Memory held, for docs/performance.md: the ring and the key table (histograms come on top).
  static size_t bytesFor(uint32_t slots);

 private:
  // 40 bytes. Records start with the tracker's first generation, which no handle carries (handles start one
  // past it), so an unused record matches none.
  struct Record {
    uint64_t started = 0, stopped = 0;  // channel bit masks of the current round
    uint64_t firstStart = 0;
    uint64_t lastStop = 0;              // of the current round; past its start, a round has run before
    uint32_t generation = 0;            // handles match the record of their generation only
    uint8_t key = TimingTable::kNoKey;  // the key's index in table_
    uint8_t expected = 1;               // channels per round (0 as 1: a round ends at its first stop)
    uint8_t channelsStopped = 0;        // in this round (the bits of `stopped`, counted without a popcount call)
    bool sticky = false;
  };
  static constexpr uint32_t kMaskChannels = 64;  // channels a round can track; NCCL's MAXCHANNELS

  class Lock {
   public:
    explicit Lock(std::atomic_flag& flag);  // waits, yielding, while the other thread holds it
    ~Lock() { flag_.clear(std::memory_order_release); }

   private:
    std::atomic_flag& flag_;
  };
  bool tryLock() { return !busy_.test_and_set(std::memory_order_acquire); }
  void unlock() { busy_.clear(std::memory_order_release); }

  // The live record a handle of `owner` (ownerOf(its kind, this tracker)) names, nullptr when it is stale,
  // foreign or not a handle. The slot is masked, not bounded: a handle of this tracker is always in range, and
  // one past the range whose owner matches is garbage that the generation rejects.
  Record* find(EventHandle h, uint32_t owner);
  // Under the lock, shared by both versions of each event.
  EventHandle beginCollective(uint32_t slot, uint8_t keyIndex, uint64_t key);
  void beginGroup(const void* group, EventHandle first);
  void* channelStarted(const void* parent, uint32_t channel, uint64_t stampNs);
  void channelStopped(EventHandle h, uint64_t stampNs);
  void finishRound(Record& r);
  uint32_t allocate();  // the next record past sticky ones
  void joinBatch(uint32_t slot);
  void markBatched(Record& r);

  Config config_;
  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::unique_ptr<Record[]> records_;
  uint32_t slots_ = 0;  // a power of two
  uint32_t slotMask_ = 0, maxSticky_ = 0;  // slots_ - 1; three quarters of slots_
  uint32_t nextRecord_ = 0, sticky_ = 0;
  // Computed once: config_.source where TimingKey::packed() keeps it, and this tracker's handle owners.
  uint64_t sourceBits_ = 0;
  EventHandle groupBase_{nullptr}, collectiveBase_{nullptr};
  uint32_t collectiveOwner_ = 0, channelOwner_ = 0;
  std::atomic<uint32_t> groups_{0};  // Group events started (their handles' number)
  // The group of the latest collective, and its first collective's handle.
  const void* group_ = nullptr;
  EventHandle groupFirst_{nullptr};
  TimingTable table_;
};

}  // namespace nccl_roce::profiler

#include "profiler/collective_tracker_events.h"

// One communicator's collectives in flight, from NCCL's Coll event to the kernel-channel stamps that time it.
//
// NCCL starts a kernel plan's Group event and then its collectives' Coll events when it hands the plan to its
// proxy (hostStreamPlanTask in NCCL's enqueue.cc, every release 2.26-2.30): on the user's thread for an eager
// launch, or on CUDA's host-callback thread when the launch went through NCCL's host stream, which is always
// so for a plan captured in a CUDA graph, at every replay. Each replay's Coll events are new, with new handles.
// The proxy thread then starts and stops one KernelCh event per channel, naming the Coll handle as its parent,
// with the GPU's start and stop stamps. A collective's duration runs from its earliest channel start to its
// latest channel stop, recorded when as many channels as it was given have stopped.
//
// Records live in a fixed ring, reused oldest first; handles carry the record's generation (event_handle.h), so
// an event for a reused record is counted as dropped, never misattributed. Collectives of one Group event after
// the first share its kernel: all of them are timed as a batch. NCCL starts a plan's collectives right after its
// Group event, so the latest group and its first collective are all that is remembered.
//
// Threads: Group and Coll events come from the user's thread or CUDA's host-callback thread, and both can run
// for one communicator at once (an eager collective while a graph's replay starts, with
// NCCL_GRAPH_MIXING_SUPPORT=0); KernelCh events from the proxy thread; snapshots from the metrics writer, the
// statistics checkpoint writer and finalize. Every member function but startGroup takes the tracker's one lock
// (common/spin_lock.h), never held across anything slow: an event holds it for a few fields, a snapshot for one
// copy of fixed-size state at a time (the key list's addresses, then each key's 8 KiB histogram), and allocates,
// sorts and formats outside it (docs/performance.md gives the longest hold measured). Nothing allocates under
// it after construction except a new key's entry and a new name combination.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/spin_lock.h"
#include "profiler/capture_timing.h"
#include "profiler/coll_name_cache.h"
#include "profiler/event_handle.h"
#include "profiler/switchback_timing.h"
#include "profiler/timing_table.h"
#include "telemetry/timings.h"

namespace nccl_roce::profiler {

// A CollApi event's fields the tracker reads (profiler v5+, NCCL 2.28+): NCCL starts one when the user calls a
// collective, and for a collective captured into a CUDA graph that is the capture.
struct CaptureEvent {
  const char* func = nullptr;      // "AllReduce"
  const char* datatype = nullptr;  // "ncclFloat32"
  uint64_t count = 0;              // elements
};

// A Coll event's fields the tracker reads, wherever an ABI version keeps them.
struct CollEvent {
  const char* func = nullptr;      // NCCL's names: "AllReduce"
  const char* datatype = nullptr;  // "ncclFloat32"
  const char* algo = nullptr;      // "RING"
  const char* proto = nullptr;     // "LL"
  uint64_t count = 0;              // elements (one rank's, for AllGather and ReduceScatter)
  int channels = 0;                // the channels NCCL gave it: the KernelCh events to expect
  const void* group = nullptr;     // its Group event's handle
  const void* parent = nullptr;    // its CollApi event's handle (v5+): startCapture's for a replay of a captured one
};

class CollectiveTracker {
 public:
  struct Config {
    uint32_t index = 0;            // this tracker's number in its handles
    uint32_t firstGeneration = 0;  // distinct per tracker, so handles of a finished tracker never match
    telemetry::TimingSource source = telemetry::TimingSource::kKernelGpu;
    uint32_t slots = 16384;     // collectives in flight at once; a power of two, at most EventHandle::kMaxSlots
    int nRanks = 0;             // to size AllGather and ReduceScatter; 0: not known (profiler v1-v3)
    bool seesCaptures = false;  // NCCL starts CollApi events and names them as replays' parents (v5+)
  };
  explicit CollectiveTracker(const Config& config);

  // Group and Coll events. A collective that is not timed (one the tuner never sees) gets nullptr, so NCCL
  // sends no children for it.
  void* startGroup();
  void* startCollective(const CollEvent& coll);
  // A CollApi event of a collective NCCL captures into a CUDA graph, in a switchback whose captures are told apart:
  // its handle names the captured collective (profiler/capture_timing.h), and every replay's Coll event names it
  // as its parent. nullptr otherwise. Makes the capture's slots when it needs them, before it takes the lock.
  void* startCapture(const CaptureEvent& capture);
  // KernelCh events. stampNs: GPU %globaltimer (or the host clock for kKernelHost trackers).
  void* startChannel(const void* parent, uint32_t channel, uint64_t stampNs);
  void stopChannel(const void* channelHandle, uint64_t stampNs);
  // Anything else NCCL hands us that cannot be used (an event type we do not know).
  void dropEvent(Drop why);
  // From now on, collectives are also timed by arm and window for a switchback experiment (the tuner's plan,
  // telemetry/switchback.h). Allocates before it takes the lock.
  void enableSwitchback(std::shared_ptr<const telemetry::SwitchbackPlan> plan);

  // Every timed key's histogram and the dropped events so far, in key order (no rules: the tuner's decisions
  // label them, telemetry/communicator_snapshot.h).
  telemetry::Timings timings() const;
  uint64_t dropped(Drop why) const;
  uint32_t index() const { return config_.index; }
  telemetry::TimingSource source() const { return config_.source; }

  // Memory held, for docs/performance.md: the ring of records and the tracker (key entries, 8 KiB each, and
  // the name cache's strings come on top).
  static size_t bytesFor(uint32_t slots);

 private:
  // 48 bytes. Records start with the tracker's first generation, which no handle carries (handles start one
  // past it), so an unused record matches none.
  struct Record {
    uint64_t started = 0, stopped = 0;  // channel bit masks of the current round
    uint64_t firstStart = 0, lastStop = 0;
    TimingTable::Entry* entry = nullptr;  // its key's; nullptr: not counted (too many keys)
    uint32_t generation = 0;              // handles match the record of their generation only
    uint8_t channels = 1;                 // the channels NCCL gave it (0 as 1)
    uint8_t stopsLeft = 1;                // channels of the current round still to stop
    // A switchback's, looked up at start: the arm an eager collective ran for (telemetry::ArmMap; negative: none),
    // or kCaptureBase + the slot of the captured collective a replay repeats.
    int16_t switchback = -1;
  };
  static constexpr int kCaptureBase = telemetry::ArmMap::kMaxArms;
  static constexpr uint32_t kMaskChannels = 64;  // channels a round can track: NCCL's MAXCHANNELS

  // A switchback's timings (none without a plan), copied as timings() copies the histograms.
  std::optional<telemetry::SwitchbackTimings> switchbackTimings() const;
  // Its captured collectives, grouped by turn into `t` (the slots copied in parts, grouped outside the lock).
  void addCapturedTurns(const telemetry::SwitchbackPlan& plan, telemetry::SwitchbackTimings* t) const;
  static constexpr uint32_t kCaptureSlotsPerCopy = 256;  // 6 KiB a lock hold, less than one histogram
  // The capture slot a Coll event's parent names (a replay of a collective captured in this switchback); -1 none.
  int captureSlotOf(const void* parent) const;
  // What a switchback collective's record keeps (Record::switchback), under the lock: `captured` its capture slot.
  int16_t switchbackOf(TimingTable::Entry& entry, int captured);
  void* captureLocked(const CaptureEvent& capture);
  // Capture handles carry the tracker's first generation: those of a finished tracker match no later one.
  uint32_t captureGeneration() const { return config_.firstGeneration & EventHandle::kGenerationMask; }
  // The live record a handle of this tracker and `kind` names; nullptr for a stale, foreign or odd handle.
  Record* recordOf(const EventHandle& h, HandleKind kind);
  void markBatched(Record& r);

  const Config config_;
  std::atomic<uint32_t> groups_{0};  // Group events started: their handles' number
  mutable SpinLock lock_;            // everything below
  std::unique_ptr<Record[]> records_;
  const uint32_t slots_;
  uint32_t nextRecord_ = 0;
  const void* group_ = nullptr;  // the latest collective's group
  EventHandle groupFirst_;       // and the handle of that group's first collective
  CollNameCache names_;
  TimingTable table_;
  std::unique_ptr<SwitchbackTiming> switchback_;  // a switchback experiment's; null otherwise
  std::unique_ptr<CaptureTiming> capture_;        // its captured collectives, where captures are told apart
};

}  // namespace nccl_roce::profiler

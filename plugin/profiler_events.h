// The profiler's per-event entry points, which the exported tables (plugin/exports_profiler.cc) call for every
// Group, Coll and KernelCh event NCCL starts, stops or updates: seven calls per collective.
//
// Each event has a try version here, inline, and a general one in profiler_plugin.cc, as the tracker's do
// (profiler/collective_tracker.h): the try version handles the common case with no call inside, so inlined
// into the exported startEvent and recordEventState it is the whole event at one call level, saving no
// registers; where it would need a call (names not cached yet, a new key, a batch, the other thread holding
// the lock) it returns false having done nothing, and the exported function hands the event to the general
// version as its last act (docs/performance.md, Profiler). Every version sets *eHandle (nullptr: no event, so
// NCCL sends no children) and never fails.
#pragma once

#include <cstdint>

#include "common/inline.h"
#include "plugin/process_context.h"
#include "plugin/profiler_plugin.h"
#include "profiler/coll_name_cache.h"
#include "profiler/collective_tracker.h"

namespace nccl_roce::plugin {

// A collective's Coll event: the fields the profiler reads, wherever a version keeps them.
struct CollEvent {
  const char* func = nullptr;
  uint64_t count = 0;
  const char* datatype = nullptr;
  const char* algo = nullptr;
  const char* proto = nullptr;
  int nChannels = 0;             // v3: nMaxChannels
  const void* group = nullptr;   // the Group event: coll.parentGroup from v5, parentObj before
};

// What the entry points read of a communicator's profiler context. The context NCCL holds is one of these,
// extended in profiler_plugin.cc by what init and finalize use.
struct ProfilerEventContext {
  ProfilerEventContext(profiler::CollectiveTracker* t, int nRanks) : tracker(t), names(nRanks) {}

  profiler::CollectiveTracker* tracker;  // owned by the full context
  profiler::CollNameCache names;         // the user's thread only (Coll events)
};

NCCL_ROCE_ALWAYS_INLINE void profilerStartGroup(void* context, void** eHandle) noexcept {
  *eHandle = context ? static_cast<ProfilerEventContext*>(context)->tracker->startGroup() : nullptr;
}

// `coll`: CollEvent's fields as functions (the exported tables pass a view of NCCL's descriptor), called where
// they are used, the names first: with all seven loaded up front, the inlined event ran out of scratch
// registers and saved five.
template <typename Coll>
NCCL_ROCE_ALWAYS_INLINE bool profilerTryStartColl(void* context, void** eHandle, const Coll& coll) noexcept {
  auto* c = static_cast<ProfilerEventContext*>(context);
  if (c == nullptr) {
    *eHandle = nullptr;
    return true;
  }
  const profiler::CollShape* shape = c->names.find(coll.func(), coll.datatype(), coll.algo(), coll.proto());
  return shape != nullptr &&
         c->tracker->tryStartCollective(shape->keyOf(coll.count(), coll.nChannels()), coll.group(), *eHandle);
}
ncclResult_t profilerStartColl(void* context, void** eHandle, const CollEvent& coll) noexcept;

// stampNs: the channel's GPU start stamp (v4+), or the host clock's when NCCL gives none (v3).
NCCL_ROCE_ALWAYS_INLINE bool profilerTryStartKernelCh(void* context, void** eHandle, const void* parent,
                                                      int channel, uint64_t stampNs) noexcept {
  auto* c = static_cast<ProfilerEventContext*>(context);
  if (c == nullptr) {
    *eHandle = nullptr;
    return true;
  }
  return c->tracker->tryStartChannel(parent, static_cast<uint32_t>(channel), stampNs, *eHandle);
}
ncclResult_t profilerStartKernelCh(void* context, void** eHandle, const void* parent, int channel,
                                   uint64_t stampNs) noexcept;

// Any other event type NCCL starts although the activation mask did not ask for it: counted as dropped.
ncclResult_t profilerStartOther(void* context, void** eHandle, uint64_t type) noexcept;

// recordEventState(KernelChStop) from v4 on: the channel's GPU stop stamp. The handle names its tracker, found
// in the process's registry, which keeps it alive while the stop is inside. Only v4+ tables call it, whose
// trackers all time by GPU stamps (v3's host-clock trackers stop in profilerStopEventOnHostClock).
NCCL_ROCE_ALWAYS_INLINE bool profilerTryStopKernelCh(void* eHandle, uint64_t stampNs) noexcept {
  profiler::EventHandle h(eHandle);
  if (h.kind() != profiler::HandleKind::kChannel) return true;  // nullptr, or not one of ours
  ProcessContext* process = processContextIfBuilt();
  if (process == nullptr) return false;
  profiler::TrackerRegistry::Pin pin(process->trackers(), h.tracker());
  profiler::CollectiveTracker* tracker = pin.tracker();
  return tracker == nullptr || tracker->tryStopChannel(eHandle, stampNs);
}
ncclResult_t profilerStopKernelCh(void* eHandle, uint64_t stampNs) noexcept;

// Nothing to do from v4 on: a channel's GPU stop stamp comes in its KernelChStop state, and a group or a
// collective is timed by its channels, not by its host-side stop.
ncclResult_t profilerStopEvent(void* eHandle) noexcept;
// v3 (NCCL 2.26): a kernel channel stops, by the host clock, when NCCL's proxy thread stops its event.
ncclResult_t profilerStopEventOnHostClock(void* eHandle) noexcept;
uint64_t hostNowNs() noexcept;  // CLOCK_MONOTONIC: v3's channel stamps

}  // namespace nccl_roce::plugin

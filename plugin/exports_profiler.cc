// The exported profiler tables. Only shims live here: each version's descriptors are read into the few fields
// the one implementation (plugin/profiler_events.h, plugin/profiler_plugin.cc) uses, since every version moved
// them. The per-event implementation is inline, so each startEvent and recordState below is the whole event. NCCL dlsyms its
// newest version first (2.31: v7, then v6, ...); from 2.28.3 it also looks here when NCCL_PROFILER_PLUGIN is
// unset and this library is the net plugin. Every entry is noexcept.
#include <type_traits>

#include "common/inline.h"
#include "plugin/nccl/profiler_v1.h"
#include "plugin/nccl/profiler_v2.h"
#include "plugin/nccl/profiler_v3.h"
#include "plugin/nccl/profiler_v4.h"
#include "plugin/nccl/profiler_v5.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/profiler_v7.h"
#include "plugin/profiler_events.h"
#include "plugin/profiler_plugin.h"

namespace {

using namespace nccl_roce::plugin;

// v1 and v2 (NCCL 2.23-2.25) have no kernel channel events: init turns every event off (mask 0), so NCCL
// builds none, and these only answer what NCCL might still call.
ncclResult_t initWithoutChannels(void** context, int* eActivationMask) noexcept {
  return profilerInit(context, eActivationMask, {}, ChannelClock::kNone, nullptr);
}
template <typename Descr>
ncclResult_t startNothing(void* /*context*/, void** eHandle, Descr* /*eDescr*/) noexcept {
  if (eHandle != nullptr) *eHandle = nullptr;
  return ncclSuccess;
}
template <typename Args>
ncclResult_t recordNothing(void* /*eHandle*/, ncclProfilerEventState_t /*eState*/, Args* /*eStateArgs*/) noexcept {
  return ncclSuccess;
}

// The fields the implementation reads from a Coll descriptor, wherever the version keeps them, read where it
// uses them (profilerTryStartColl says why). Before v5 a collective's group is its parentObj; from v5 it is
// coll.parentGroup (parentObj is the CollApi event, which we do not ask for). v3 has nMaxChannels where v4+
// have nChannels.
template <typename Descr>
struct CollFields {
  static constexpr bool kV3 = std::is_same_v<Descr, ncclProfilerEventDescr_v3_t>;
  static constexpr bool kGroupIsParent = kV3 || std::is_same_v<Descr, ncclProfilerEventDescr_v4_t>;

  const Descr& d;
  const char* func() const { return d.coll.func; }
  uint64_t count() const { return d.coll.count; }
  const char* datatype() const { return d.coll.datatype; }
  const char* algo() const { return d.coll.algo; }
  const char* proto() const { return d.coll.proto; }
  int nChannels() const {
    if constexpr (kV3) return d.coll.nMaxChannels; else return d.coll.nChannels;
  }
  const void* group() const {
    if constexpr (kGroupIsParent) return d.parentObj; else return d.coll.parentGroup;
  }
};
template <typename Descr>
CollEvent collOf(const Descr& d) {
  CollFields<Descr> f{d};
  return {f.func(), f.count(), f.datatype(), f.algo(), f.proto(), f.nChannels(), f.group()};
}

// A channel's start stamp: the GPU's from v4; v3 has none, so the host clock's, now.
uint64_t startStampOf(const ncclProfilerEventDescr_v3_t& /*d*/) { return hostNowNs(); }
template <typename Descr>
uint64_t startStampOf(const Descr& d) { return d.kernelCh.pTimer; }

// The Coll and KernelCh events each in a function of its own, which startEvent jumps to (a tail call, not a
// second call level): sharing one function with the Coll event, which needs many registers, made every event
// save and restore them. Each tries the inline version and hands the event to the general one where that
// gives up (plugin/profiler_events.h). startCollGeneral is apart so that the CollEvent it builds for the
// general version lives in its frame, not in startCollEvent's.
template <typename Descr>
NCCL_ROCE_NOINLINE ncclResult_t startCollGeneral(void* context, void** eHandle, const Descr& d) noexcept {
  return profilerStartColl(context, eHandle, collOf(d));
}
template <typename Descr>
NCCL_ROCE_NOINLINE ncclResult_t startCollEvent(void* context, void** eHandle, const Descr& d) noexcept {
  if (profilerTryStartColl(context, eHandle, CollFields<Descr>{d})) return ncclSuccess;
  return startCollGeneral(context, eHandle, d);
}
template <typename Descr>
NCCL_ROCE_NOINLINE ncclResult_t startKernelChEvent(void* context, void** eHandle, const Descr& d) noexcept {
  uint64_t stamp = startStampOf(d);
  if (profilerTryStartKernelCh(context, eHandle, d.parentObj, d.kernelCh.channelId, stamp)) return ncclSuccess;
  return profilerStartKernelCh(context, eHandle, d.parentObj, d.kernelCh.channelId, stamp);
}

// startEvent for v3 - v7: each event type to its implementation, reading only what it uses (three of these run
// per collective, so nothing is copied that is not read).
template <typename Descr>
ncclResult_t startEvent(void* context, void** eHandle, Descr* eDescr) noexcept {
  if (eHandle == nullptr) return ncclSuccess;
  if (eDescr == nullptr) {
    *eHandle = nullptr;
    return ncclSuccess;
  }
  switch (eDescr->type) {
    case ncclProfileGroup:
      profilerStartGroup(context, eHandle);
      return ncclSuccess;
    case ncclProfileColl:
      return startCollEvent(context, eHandle, *eDescr);
    case ncclProfileKernelCh:
      return startKernelChEvent(context, eHandle, *eDescr);
    default:
      return profilerStartOther(context, eHandle, eDescr->type);
  }
}

// v4-v7 pass a channel's GPU stop stamp in the same place (kernelCh.pTimer, the first member of the union).
template <typename Args>
ncclResult_t recordState(void* eHandle, ncclProfilerEventState_t eState, Args* eStateArgs) noexcept {
  if (eState != ncclProfilerKernelChStop || eStateArgs == nullptr) return ncclSuccess;
  uint64_t stamp = eStateArgs->kernelCh.pTimer;
  if (profilerTryStopKernelCh(eHandle, stamp)) return ncclSuccess;
  return profilerStopKernelCh(eHandle, stamp);
}

// v3 (2.26) gives no communicator, and kernel channels without stamps.
ncclResult_t initV3(void** context, int* eActivationMask) noexcept {
  return profilerInit(context, eActivationMask, {}, ChannelClock::kHost, nullptr);
}

// v4 (2.27) gives the communicator's hash, which the tuner of 2.27 does not get: statistics pair on 0 there.
ncclResult_t initV4(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes,
                    int nRanks, int rank, ncclDebugLogger_t logFunction) noexcept {
  ProfilerCommunicator comm{0, commHash, commName, nNodes, nRanks, rank};
  return profilerInit(context, eActivationMask, comm, ChannelClock::kGpu, logFunction);
}

ncclResult_t initV5(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                    int nRanks, int rank, ncclDebugLogger_t logFunction) noexcept {
  ProfilerCommunicator comm{commId, commId, commName, nNodes, nRanks, rank};
  return profilerInit(context, eActivationMask, comm, ChannelClock::kGpu, logFunction);
}


}  // namespace

// NCCL 2.23.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v1_t ncclProfiler_v1 = {kProfilerName, initWithoutChannels, startNothing<ncclProfilerEventDescr_v1_t>,
                                           profilerStopEvent, recordNothing<ncclProfilerEventStateArgs_v1_t>,
                                           profilerFinalize};

// NCCL 2.24 - 2.25.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v2_t ncclProfiler_v2 = {kProfilerName, initWithoutChannels, startNothing<ncclProfilerEventDescr_v2_t>,
                                           profilerStopEvent, recordNothing<ncclProfilerEventStateArgs_v2_t>,
                                           profilerFinalize};

// NCCL 2.26.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v3_t ncclProfiler_v3 = {kProfilerName, initV3, startEvent<ncclProfilerEventDescr_v3_t>,
                                           profilerStopEventOnHostClock, recordNothing<ncclProfilerEventStateArgs_v3_t>,
                                           profilerFinalize};

// NCCL 2.27.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v4_t ncclProfiler_v4 = {kProfilerName, initV4, startEvent<ncclProfilerEventDescr_v4_t>, profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v4_t>, profilerFinalize};

// NCCL 2.28.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v5_t ncclProfiler_v5 = {kProfilerName, initV5, startEvent<ncclProfilerEventDescr_v5_t>,
                                           profilerStopEvent, recordState<ncclProfilerEventStateArgs_v5_t>,
                                           profilerFinalize};

// NCCL 2.29 - 2.30.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v6_t ncclProfiler_v6 = {kProfilerName, initV5, startEvent<ncclProfilerEventDescr_v6_t>,
                                           profilerStopEvent, recordState<ncclProfilerEventStateArgs_v6_t>,
                                           profilerFinalize};

// NCCL 2.31 and later.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v7_t ncclProfiler_v7 = {kProfilerName, initV5, startEvent<ncclProfilerEventDescr_v7_t>, profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v7_t>, profilerFinalize};

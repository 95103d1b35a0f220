// The exported profiler tables: v1 - v7, the versions NCCL releases declare (docs/nccl-versions.md, "Exported
// symbols"). Only shims live here: each version's descriptors are read into the few fields the one implementation
// (plugin/profiler_plugin.cc) uses, since every version moved them. NCCL dlsyms its newest version first (2.31.2 and
// later: v7, then v6, ...); from 2.28.3 it also looks here when NCCL_PROFILER_PLUGIN is unset and this library is
// the net plugin. Every entry is noexcept.
#include <type_traits>

#include "plugin/nccl/profiler_v1.h"
#include "plugin/nccl/profiler_v2.h"
#include "plugin/nccl/profiler_v3.h"
#include "plugin/nccl/profiler_v4.h"
#include "plugin/nccl/profiler_v5.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/profiler_v7.h"
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

// A Coll descriptor's fields, wherever the version keeps them. Before v5 a collective's group is its parentObj;
// from v5 it is coll.parentGroup, and parentObj is the CollApi event (for a replay of a captured collective, the
// capture's). v3 has nMaxChannels where v4+ have nChannels.
template <typename Descr>
nccl_roce::profiler::CollEvent collOf(const Descr& d) {
  constexpr bool kV3 = std::is_same_v<Descr, ncclProfilerEventDescr_v3_t>;
  constexpr bool kGroupIsParent = kV3 || std::is_same_v<Descr, ncclProfilerEventDescr_v4_t>;
  nccl_roce::profiler::CollEvent coll;
  coll.func = d.coll.func;
  coll.datatype = d.coll.datatype;
  coll.algo = d.coll.algo;
  coll.proto = d.coll.proto;
  coll.count = d.coll.count;
  if constexpr (kV3)
    coll.channels = d.coll.nMaxChannels;
  else
    coll.channels = d.coll.nChannels;
  if constexpr (kGroupIsParent) {
    coll.group = d.parentObj;
  } else {
    coll.group = d.coll.parentGroup;
    coll.parent = d.parentObj;
  }
  return coll;
}

// CollApi events exist from v5 (NCCL 2.28): the descriptors before have no collApi member.
template <typename Descr>
constexpr bool kHasCollApi =
    !std::is_same_v<Descr, ncclProfilerEventDescr_v3_t> && !std::is_same_v<Descr, ncclProfilerEventDescr_v4_t>;

// A channel's start stamp: the GPU's from v4; v3 has none, so the host clock's, now.
uint64_t startStampOf(const ncclProfilerEventDescr_v3_t& /*d*/) {
  return hostNowNs();
}
template <typename Descr>
uint64_t startStampOf(const Descr& d) {
  return d.kernelCh.pTimer;
}

// startEvent for v3 and later: each event type to its implementation. v7's KernelPhase events are never asked for
// (init leaves bit 15 off); were one started, it is a known type with no handle, like every type not timed here.
// v7's user tag, kernel variant and symmetric flag are not read (docs/ab-testing.md, "What is measured").
template <typename Descr>
ncclResult_t startEvent(void* context, void** eHandle, Descr* eDescr) noexcept {
  if (eHandle == nullptr) return ncclSuccess;
  if (eDescr == nullptr) {
    *eHandle = nullptr;
    return ncclSuccess;
  }
  if constexpr (kHasCollApi<Descr>) {
    if (eDescr->type == ncclProfileCollApi) {  // every collective called; only a capture is of use
      const auto& api = eDescr->collApi;
      *eHandle = nullptr;
      if (api.graphCaptured) profilerStartCollApi(context, eHandle, {api.func, api.datatype, api.count}, true);
      return ncclSuccess;
    }
  }
  switch (eDescr->type) {
    case ncclProfileGroup:
      profilerStartGroup(context, eHandle);
      break;
    case ncclProfileColl:
      profilerStartColl(context, eHandle, collOf(*eDescr));
      break;
    case ncclProfileKernelCh:
      profilerStartKernelCh(context, eHandle, eDescr->parentObj, eDescr->kernelCh.channelId, startStampOf(*eDescr));
      break;
    default:
      profilerStartOther(context, eHandle, eDescr->type);
  }
  return ncclSuccess;
}

// v4 and later pass a channel's GPU stop stamp in the same place (kernelCh.pTimer, the first member of the union).
template <typename Args>
ncclResult_t recordState(void* eHandle, ncclProfilerEventState_t eState, Args* eStateArgs) noexcept {
  if (eState == ncclProfilerKernelChStop && eStateArgs != nullptr)
    profilerStopKernelCh(eHandle, eStateArgs->kernelCh.pTimer);
  return ncclSuccess;
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

ncclResult_t initV5(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nRanks,
                    int rank, ncclDebugLogger_t logFunction) noexcept {
  ProfilerCommunicator comm{commId, commId, commName, nNodes, nRanks, rank, /*seesCaptures=*/true};
  return profilerInit(context, eActivationMask, comm, ChannelClock::kGpu, logFunction);
}

}  // namespace

// NCCL 2.23.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v1_t ncclProfiler_v1 = {kProfilerName,
                                           initWithoutChannels,
                                           startNothing<ncclProfilerEventDescr_v1_t>,
                                           profilerStopEvent,
                                           recordNothing<ncclProfilerEventStateArgs_v1_t>,
                                           profilerFinalize};

// NCCL 2.24 - 2.25.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v2_t ncclProfiler_v2 = {kProfilerName,
                                           initWithoutChannels,
                                           startNothing<ncclProfilerEventDescr_v2_t>,
                                           profilerStopEvent,
                                           recordNothing<ncclProfilerEventStateArgs_v2_t>,
                                           profilerFinalize};

// NCCL 2.26.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v3_t ncclProfiler_v3 = {kProfilerName,
                                           initV3,
                                           startEvent<ncclProfilerEventDescr_v3_t>,
                                           profilerStopEventOnHostClock,
                                           recordNothing<ncclProfilerEventStateArgs_v3_t>,
                                           profilerFinalize};

// NCCL 2.27.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v4_t ncclProfiler_v4 = {kProfilerName,
                                           initV4,
                                           startEvent<ncclProfilerEventDescr_v4_t>,
                                           profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v4_t>,
                                           profilerFinalize};

// NCCL 2.28.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v5_t ncclProfiler_v5 = {kProfilerName,
                                           initV5,
                                           startEvent<ncclProfilerEventDescr_v5_t>,
                                           profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v5_t>,
                                           profilerFinalize};

// NCCL 2.29 - 2.30.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v6_t ncclProfiler_v6 = {kProfilerName,
                                           initV5,
                                           startEvent<ncclProfilerEventDescr_v6_t>,
                                           profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v6_t>,
                                           profilerFinalize};

// NCCL 2.31.2 and later (the newest version a release declares).
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v7_t ncclProfiler_v7 = {kProfilerName,
                                           initV5,
                                           startEvent<ncclProfilerEventDescr_v7_t>,
                                           profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v7_t>,
                                           profilerFinalize};

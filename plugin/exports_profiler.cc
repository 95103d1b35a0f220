// The exported profiler tables. Only shims live here: each older version's descriptors are copied into the
// newest (v7) layout for the one implementation in plugin/profiler_plugin.cc, field by field, since every
// version moved them. NCCL dlsyms its newest version first (2.31: v7, then v6, ...); from 2.28.3 it also looks
// here when NCCL_PROFILER_PLUGIN is unset and this library is the net plugin. Every entry is noexcept.
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

// The fields the implementation reads, from any version's descriptor: for a Coll its name, size, choice,
// channels and group; for a KernelCh its parent, channel and (v4+) start stamp. Nothing else is read, so nothing
// else is copied (three of these run per collective). Before v5 a collective's group is its parentObj; from v5 it
// is coll.parentGroup (parentObj is the CollApi event, which we do not ask for).
template <typename Descr>
ncclProfilerEventDescr_v7_t toV7(const Descr& d) {
  ncclProfilerEventDescr_v7_t v7;
  v7.type = d.type;
  v7.parentObj = d.parentObj;
  v7.rank = d.rank;
  if (d.type == ncclProfileColl) {
    v7.coll.seqNumber = d.coll.seqNumber;
    v7.coll.func = d.coll.func;
    v7.coll.count = d.coll.count;
    v7.coll.datatype = d.coll.datatype;
    v7.coll.algo = d.coll.algo;
    v7.coll.proto = d.coll.proto;
  } else if (d.type == ncclProfileKernelCh) {
    v7.kernelCh.channelId = d.kernelCh.channelId;
  }
  return v7;
}

ncclResult_t startV3(void* context, void** eHandle, ncclProfilerEventDescr_v3_t* eDescr) noexcept {
  if (eDescr == nullptr) return startNothing(context, eHandle, eDescr);
  ncclProfilerEventDescr_v7_t v7 = toV7(*eDescr);
  v7.coll.nChannels = eDescr->type == ncclProfileColl ? eDescr->coll.nMaxChannels : 0;
  v7.coll.parentGroup = eDescr->type == ncclProfileColl ? eDescr->parentObj : nullptr;
  return profilerStartEvent(context, eHandle, &v7);
}

ncclResult_t startV4(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr) noexcept {
  if (eDescr == nullptr) return startNothing(context, eHandle, eDescr);
  ncclProfilerEventDescr_v7_t v7 = toV7(*eDescr);
  if (eDescr->type == ncclProfileColl) {
    v7.coll.nChannels = eDescr->coll.nChannels;
    v7.coll.parentGroup = eDescr->parentObj;
  }
  if (eDescr->type == ncclProfileKernelCh) v7.kernelCh.pTimer = eDescr->kernelCh.pTimer;
  return profilerStartEvent(context, eHandle, &v7);
}

template <typename Descr>
ncclResult_t startV5(void* context, void** eHandle, Descr* eDescr) noexcept {
  if (eDescr == nullptr) return startNothing(context, eHandle, eDescr);
  ncclProfilerEventDescr_v7_t v7 = toV7(*eDescr);
  if (eDescr->type == ncclProfileColl) {
    v7.coll.nChannels = eDescr->coll.nChannels;
    v7.coll.parentGroup = eDescr->coll.parentGroup;
  }
  if (eDescr->type == ncclProfileKernelCh) v7.kernelCh.pTimer = eDescr->kernelCh.pTimer;
  return profilerStartEvent(context, eHandle, &v7);
}

ncclResult_t startV7(void* context, void** eHandle, ncclProfilerEventDescr_v7_t* eDescr) noexcept {
  return profilerStartEvent(context, eHandle, eDescr);
}

// v4-v7 pass a channel's GPU stop stamp in the same place (kernelCh.pTimer, the first member of the union).
template <typename Args>
ncclResult_t recordState(void* eHandle, ncclProfilerEventState_t eState, Args* eStateArgs) noexcept {
  if (eStateArgs == nullptr) return profilerRecordEventState(eHandle, eState, nullptr);
  ncclProfilerEventStateArgs_v7_t v7{};
  if (eState == ncclProfilerKernelChStop) v7.kernelCh.pTimer = eStateArgs->kernelCh.pTimer;
  return profilerRecordEventState(eHandle, eState, &v7);
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

ncclResult_t recordV3(void* eHandle, ncclProfilerEventState_t eState, ncclProfilerEventStateArgs_v3_t*) noexcept {
  return profilerRecordEventState(eHandle, eState, nullptr);  // no stop stamps: stopEvent uses the host clock
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
const ncclProfiler_v3_t ncclProfiler_v3 = {kProfilerName, initV3, startV3, profilerStopEventOnHostClock, recordV3,
                                           profilerFinalize};

// NCCL 2.27.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v4_t ncclProfiler_v4 = {kProfilerName, initV4, startV4, profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v4_t>, profilerFinalize};

// NCCL 2.28.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v5_t ncclProfiler_v5 = {kProfilerName, initV5, startV5<ncclProfilerEventDescr_v5_t>,
                                           profilerStopEvent, recordState<ncclProfilerEventStateArgs_v5_t>,
                                           profilerFinalize};

// NCCL 2.29 - 2.30.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v6_t ncclProfiler_v6 = {kProfilerName, initV5, startV5<ncclProfilerEventDescr_v6_t>,
                                           profilerStopEvent, recordState<ncclProfilerEventStateArgs_v6_t>,
                                           profilerFinalize};

// NCCL 2.31 and later.
extern "C" __attribute__((visibility("default")))
const ncclProfiler_v7_t ncclProfiler_v7 = {kProfilerName, initV5, startV7, profilerStopEvent,
                                           recordState<ncclProfilerEventStateArgs_v7_t>, profilerFinalize};

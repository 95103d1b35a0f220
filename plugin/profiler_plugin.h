// The profiler plugin, implemented once; plugin/exports_profiler.cc reads each released ABI version's (v1..v7)
// event descriptors into the few fields used here. It times collectives per communicator from NCCL's Coll and
// KernelCh events (profiler/collective_tracker.h) and reports them into the process's statistics file next to
// the tuner's decisions, and optionally as an OpenMetrics textfile (plugin/metrics_textfile.h).
//
// Contract with NCCL: nothing here ever returns an error (an init error unloads the profiler or, on 2.23-2.27,
// turns it off for the whole process; an event error is ignored), and when timing is off init sets
// eActivationMask to 0, so NCCL builds no events at all: timing off costs NCCL one mask test per collective.
// Timing is on when NCCL_ROCE_STATS names a file prefix and NCCL_ROCE_PROFILE is not 0.
#pragma once

#include <cstdint>

#include "plugin/nccl/profiler_v7.h"
#include "profiler/collective_tracker.h"

namespace nccl_roce::plugin {

class ProcessContext;

// What an ABI version gives for a kernel channel's times.
enum class ChannelClock {
  kNone,  // v1, v2 (NCCL 2.23-2.25): no kernel channel events, nothing to time
  kHost,  // v3 (2.26): channel events without GPU stamps; the host clock when the proxy thread sees them
  kGpu,   // v4+ (2.27+): GPU %globaltimer stamps at channel start (descriptor) and stop (KernelChStop state)
};

struct ProfilerCommunicator {
  uint64_t commId = 0;    // what the tuner of the same NCCL gets: NCCL's commHash from 2.28 (v5+), else 0
  uint64_t commHash = 0;  // NCCL's commHash where the version passes it (v4+): logs and metrics labels
  const char* commName = nullptr;
  int nNodes = 0, nRanks = 0, rank = -1;  // 0 / -1 where the version passes none (v1-v3)
  // NCCL starts a CollApi event for each collective, flagged when it is captured into a CUDA graph, and names it
  // as the parent of every replay's Coll event (v5+, NCCL 2.28+): replays are told from eager collectives.
  bool seesCaptures = false;
};

ncclResult_t profilerInit(ProcessContext& process, void** context, int* eActivationMask,
                          const ProfilerCommunicator& comm, ChannelClock clock, ncclDebugLogger_t logFunction) noexcept;
// The same over this process's context (processContext()): what the exported tables call.
ncclResult_t profilerInit(void** context, int* eActivationMask, const ProfilerCommunicator& comm, ChannelClock clock,
                          ncclDebugLogger_t logFunction) noexcept;

ncclResult_t profilerFinalize(void* context) noexcept;

// The per-event entry points, which the exported tables call for the events NCCL starts, stops or updates.
// Each start sets *eHandle (nullptr: no event, so NCCL sends no children for it); none ever fails.
// Group and Coll events: the user's thread, or CUDA's host-callback thread (graph replays, profiler/
// collective_tracker.h).
void profilerStartGroup(void* context, void** eHandle) noexcept;
void profilerStartColl(void* context, void** eHandle, const profiler::CollEvent& coll) noexcept;
// CollApi events (v5+), on the user's thread: NCCL starts one for every collective called, before it asks the tuner.
// One flagged as captured into a CUDA graph gets a handle in a switchback (profiler/collective_tracker.h,
// startCapture); every other gets none, so NCCL stops nothing.
void profilerStartCollApi(void* context, void** eHandle, const profiler::CaptureEvent& capture,
                          bool graphCaptured) noexcept;
// KernelCh events, on NCCL's proxy thread. stampNs: the channel's GPU start stamp (v4+), or the host clock's
// when NCCL gives none (v3).
void profilerStartKernelCh(void* context, void** eHandle, const void* parent, int channel, uint64_t stampNs) noexcept;
// recordEventState(KernelChStop) from v4 on: the channel's GPU stop stamp. The handle names its tracker, found in
// the process's registry.
void profilerStopKernelCh(void* eHandle, uint64_t stampNs) noexcept;
// Every other event type. NCCL builds P2p events (its KernelCh bit implies them) and, from 2.28 on, the API-level
// GroupApi and P2pApi events (implied by the Group, Coll and KernelCh bits; KernelLaunch only by its own) whatever
// a profiler asks for: they are known and ignored, as v7's KernelPhase (never asked for). A type no released version
// declares is counted as dropped (unknown_event).
void profilerStartOther(void* context, void** eHandle, uint64_t type) noexcept;
// Nothing to do from v4 on: a channel's GPU stop stamp comes in its KernelChStop state, and a group or a
// collective is timed by its channels, not by its host-side stop.
ncclResult_t profilerStopEvent(void* eHandle) noexcept;
// v3 (NCCL 2.26): a kernel channel stops, by the host clock, when NCCL's proxy thread stops its event.
ncclResult_t profilerStopEventOnHostClock(void* eHandle) noexcept;
uint64_t hostNowNs() noexcept;  // CLOCK_MONOTONIC: v3's channel stamps

// The plugin's name in NCCL's logs ("PROFILER/Plugin: Plugin name set by env to nccl-roce").
inline constexpr const char* kProfilerName = "nccl-roce";

}  // namespace nccl_roce::plugin

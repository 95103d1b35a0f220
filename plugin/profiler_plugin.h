// The profiler plugin, implemented once; plugin/exports_profiler.cc reads each ABI version's (v1..v7) event
// descriptors into the few fields used here. Init and finalize are here; the per-event entry points, inline,
// in plugin/profiler_events.h.
// It times collectives per communicator from NCCL's Coll and KernelCh events (profiler/collective_tracker.h)
// and reports them into the process's statistics file next to the tuner's decisions, and optionally as an
// OpenMetrics textfile (plugin/metrics_textfile.h).
//
// Contract with NCCL: nothing here ever returns an error (an init error unloads the profiler or, on 2.23-2.27,
// turns it off for the whole process; an event error is ignored), and when timing is off init sets
// eActivationMask to 0, so NCCL builds no events at all: timing off costs NCCL one mask test per collective.
// Timing is on when NCCL_ROCE_STATS names a file prefix and NCCL_ROCE_PROFILE is not 0.
#pragma once

#include <cstdint>

#include "plugin/nccl/profiler_v7.h"

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
};

ncclResult_t profilerInit(ProcessContext& process, void** context, int* eActivationMask,
                          const ProfilerCommunicator& comm, ChannelClock clock, ncclDebugLogger_t logFunction) noexcept;
// The same over this process's context (processContext()): what the exported tables call.
ncclResult_t profilerInit(void** context, int* eActivationMask, const ProfilerCommunicator& comm, ChannelClock clock,
                          ncclDebugLogger_t logFunction) noexcept;

ncclResult_t profilerFinalize(void* context) noexcept;
// The per-event entry points (startEvent, stopEvent, recordEventState) are in plugin/profiler_events.h.

// The plugin's name in NCCL's logs ("PROFILER/Plugin: Plugin name set by env to nccl-roce").
inline constexpr const char* kProfilerName = "nccl-roce";

}  // namespace nccl_roce::plugin

#include "plugin/profiler_plugin.h"

#include <time.h>
#include <unistd.h>

#include <memory>
#include <new>
#include <string>
#include <utility>

#include "common/log.h"
#include "common/settings.h"
#include "common/strings.h"
#include "plugin/metrics_textfile.h"
#include "plugin/nccl_logger.h"
#include "plugin/process_context.h"

namespace nccl_roce::plugin {

namespace {

using profiler::CollectiveTracker;
using profiler::EventHandle;
using profiler::HandleKind;

// One communicator's profiler context, which NCCL holds: its tracker and the telemetry entry it reports into.
struct ProfilerComm {
  ProfilerComm(ProcessContext& p, std::shared_ptr<CollectiveTracker> t) : process(&p), tracker(std::move(t)) {}

  ProcessContext* process;
  std::shared_ptr<CollectiveTracker> tracker;
  ProfilerReport shape;  // ranks, nodes, rank: what every report starts from
  std::string statsPath;
  TelemetryEntry statsEntry;
  NcclLogger logger;
};

ProfilerComm* commOf(void* context) {
  return static_cast<ProfilerComm*>(context);
}

bool timingRequested(const Environment& env) {
  auto stats = env.get(settings::kStats.name);
  auto profile = env.get(settings::kProfile.name);
  return stats && !stats->empty() && !(profile && *profile == "0");
}

// The profiler's part of the communicator's telemetry as it is now. Shares the tracker, so a checkpoint or the
// metrics writer can ask on its own thread while the communicator finalizes.
ProfilerNow reportNow(const ProfilerComm& c) {
  return [shape = c.shape, tracker = c.tracker] {
    ProfilerReport report = shape;
    report.timings = tracker->timings();
    return report;
  };
}

ProfilerReport shapeOf(const ProfilerCommunicator& comm) {
  ProfilerReport shape;
  shape.nRanks = comm.nRanks;  // the tuner reports the same; v1-v3 profilers are not told
  shape.nNodes = comm.nNodes;
  if (comm.rank >= 0) shape.rank = comm.rank;
  return shape;
}

ProfilerComm* newProfilerComm(ProcessContext& process, const ProfilerCommunicator& comm, ChannelClock clock) {
  CollectiveTracker::Config config;
  config.source =
      clock == ChannelClock::kHost ? profiler::TimingSource::kKernelHost : profiler::TimingSource::kKernelGpu;
  config.nRanks = comm.nRanks;
  config.seesCaptures = comm.seesCaptures;
  std::shared_ptr<CollectiveTracker> tracker = process.trackers().add(config);
  if (!tracker) return nullptr;
  TelemetryFiles& files = process.telemetryFiles();
  std::unique_ptr<ProfilerComm> c;
  try {
    c = std::make_unique<ProfilerComm>(process, tracker);
    const Environment& env = process.environment();
    c->shape = shapeOf(comm);
    c->statsPath = TelemetryFiles::statsPathOf(env).value_or("");  // timingRequested: set
    c->statsEntry = files.claim(c->statsPath, comm.commId, Producer::kProfiler, {comm.nRanks, comm.nNodes});
    c->statsEntry.telemetry->attach(reportNow(*c));
    // A switchback experiment's plan comes with the tuner, which NCCL initialises after the profiler.
    c->statsEntry.telemetry->onSwitchback([tracker](std::shared_ptr<const telemetry::SwitchbackPlan> plan) {
      tracker->enableSwitchback(std::move(plan));
    });
    process.metrics().add(c->statsEntry.telemetry, env);
    return c.release();
  } catch (...) {
    // The registry names the tracker by a raw pointer: take it out before the last owner goes, so a late
    // event's handle finds an empty slot instead of freed memory. A claimed entry is let go unwritten.
    process.trackers().remove(tracker);
    if (c && c->statsEntry.number != 0) (void)files.finish(c->statsPath, c->statsEntry, Producer::kProfiler);
    throw;
  }
}

}  // namespace

ncclResult_t profilerInit(ProcessContext& process, void** context, int* eActivationMask,
                          const ProfilerCommunicator& comm, ChannelClock clock,
                          ncclDebugLogger_t logFunction) noexcept {
  if (context != nullptr) *context = nullptr;
  // NCCL keeps one activation mask for the whole process and reads it at every collective: 0 builds no events.
  if (eActivationMask != nullptr) *eActivationMask = 0;
  if (context == nullptr || eActivationMask == nullptr) return ncclSuccess;
  NcclLogger logger(logFunction);
  process.useNcclLogger(logFunction);
  try {
    if (!timingRequested(process.environment())) return ncclSuccess;
    std::string problem = process.telemetryFiles().takeProblem();
    if (!problem.empty()) NCCL_ROCE_WARN(logger, kLogProfile | kLogInit, "profiler: %s", problem.c_str());
    if (clock == ChannelClock::kNone) {
      NCCL_ROCE_INFO(logger, kLogProfile,
                     "profiler: this NCCL has no kernel channel events (2.26+ needed); "
                     "collectives are not timed");
      return ncclSuccess;
    }
    // Group events let the tracker see collectives batched into one kernel.
    *eActivationMask = ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh;
    ProfilerComm* c = newProfilerComm(process, comm, clock);
    if (c == nullptr) {
      NCCL_ROCE_INFO(logger, kLogProfile, "profiler: comm %s not timed: %u communicators are timed already",
                     formatHexId(comm.commHash).c_str(), profiler::TrackerRegistry::kSlots);
      return ncclSuccess;
    }
    c->logger.setFunction(logFunction);
    *context = c;
    NCCL_ROCE_INFO(c->logger, kLogProfile | kLogInit, "profiler: timing comm %s (%s clock), reported to %s",
                   formatHexId(comm.commHash).c_str(), clock == ChannelClock::kGpu ? "GPU" : "host",
                   c->statsPath.c_str());
  } catch (...) {
    // printf formats the id: this line may follow a failed allocation, so it makes none of its own.
    NCCL_ROCE_WARN(logger, kLogProfile, "profiler: initialisation failed; comm 0x%016llx is not timed",
                   static_cast<unsigned long long>(comm.commHash));
  }
  return ncclSuccess;
}

ncclResult_t profilerInit(void** context, int* eActivationMask, const ProfilerCommunicator& comm, ChannelClock clock,
                          ncclDebugLogger_t logFunction) noexcept {
  ProcessContext* process = processContext();
  if (process == nullptr) {
    if (context != nullptr) *context = nullptr;
    if (eActivationMask != nullptr) *eActivationMask = 0;
    return ncclSuccess;
  }
  return profilerInit(*process, context, eActivationMask, comm, clock, logFunction);
}

uint64_t hostNowNs() noexcept {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// Each event runs inside a try block: nothing is thrown across NCCL's C ABI (an allocation failing for a new key
// or name costs the event, never the process).

void profilerStartGroup(void* context, void** eHandle) noexcept {
  *eHandle = context != nullptr ? commOf(context)->tracker->startGroup() : nullptr;
}

void profilerStartColl(void* context, void** eHandle, const profiler::CollEvent& coll) noexcept {
  *eHandle = nullptr;
  if (context == nullptr) return;
  try {
    *eHandle = commOf(context)->tracker->startCollective(coll);
  } catch (...) {
  }
}

void profilerStartCollApi(void* context, void** eHandle, const profiler::CaptureEvent& capture,
                          bool graphCaptured) noexcept {
  *eHandle = nullptr;
  if (context == nullptr || !graphCaptured) return;
  try {
    *eHandle = commOf(context)->tracker->startCapture(capture);
  } catch (...) {
  }
}

void profilerStartKernelCh(void* context, void** eHandle, const void* parent, int channel, uint64_t stampNs) noexcept {
  *eHandle = nullptr;
  if (context == nullptr) return;
  try {
    *eHandle = commOf(context)->tracker->startChannel(parent, static_cast<uint32_t>(channel), stampNs);
  } catch (...) {
  }
}

void profilerStopKernelCh(void* eHandle, uint64_t stampNs) noexcept {
  EventHandle h = EventHandle::of(eHandle);
  if (h.kind != HandleKind::kChannel) return;         // nullptr, or not one of ours
  ProcessContext* process = processContextIfBuilt();  // a tracker exists only once it is built
  if (process == nullptr) return;
  try {
    process->trackers().with(h.tracker, [&](CollectiveTracker& tracker) { tracker.stopChannel(eHandle, stampNs); });
  } catch (...) {
  }
}

void profilerStartOther(void* context, void** eHandle, uint64_t type) noexcept {
  *eHandle = nullptr;
  bool known = type != 0 && type <= ncclProfileKernelPhase && (type & (type - 1)) == 0;  // one of NCCL's, v1-v7
  if (context == nullptr || known) return;
  try {
    commOf(context)->tracker->dropEvent(profiler::Drop::kUnknownEvent);
  } catch (...) {
  }
}

ncclResult_t profilerStopEvent(void* /*eHandle*/) noexcept {
  return ncclSuccess;
}

ncclResult_t profilerStopEventOnHostClock(void* eHandle) noexcept {
  EventHandle h = EventHandle::of(eHandle);
  if (h.kind != HandleKind::kChannel) return ncclSuccess;  // groups and collectives need nothing at their stop
  ProcessContext* process = processContextIfBuilt();
  if (process == nullptr) return ncclSuccess;
  try {
    process->trackers().with(h.tracker, [eHandle](CollectiveTracker& tracker) {
      if (tracker.source() == telemetry::TimingSource::kKernelHost) tracker.stopChannel(eHandle, hostNowNs());
    });
  } catch (...) {
  }
  return ncclSuccess;
}

ncclResult_t profilerFinalize(void* context) noexcept {
  if (context == nullptr) return ncclSuccess;
  ProfilerComm* c = commOf(context);
  try {
    c->process->trackers().remove(c->tracker);  // after this no proxy event reaches the tracker
    // The tracker's timings, folded into the entry: what stays of this communicator once `c` (and with it the
    // tracker and its histograms) is freed below.
    c->statsEntry.telemetry->finish(reportNow(*c)());
    c->process->metrics().finish(c->statsEntry.telemetry);
    // A failed write has been said, once per process (plugin/write_failures.h).
    (void)c->process->telemetryFiles().finish(c->statsPath, c->statsEntry, Producer::kProfiler);
  } catch (...) {
    NCCL_ROCE_WARN(c->logger, kLogProfile, "profiler: writing statistics failed");
  }
  delete c;
  return ncclSuccess;
}

}  // namespace nccl_roce::plugin

#include "plugin/profiler_plugin.h"

#include <time.h>
#include <unistd.h>

#include <memory>
#include <new>
#include <string>

#include "common/log.h"
#include "plugin/metrics_textfile.h"
#include "plugin/nccl_logger.h"
#include "plugin/process_context.h"
#include "plugin/timing_statistics.h"
#include "profiler/nccl_strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::plugin {

namespace {

using profiler::CollectiveInfo;
using profiler::CollectiveTracker;
using profiler::EventHandle;
using profiler::HandleKind;

constexpr int kCollAllGather = 2, kCollReduceScatter = 3;  // tuner indices (tuner/nccl_names.h)

// One communicator's profiler context: its tracker and what its timings are reported with.
struct ProfilerComm {
  ProcessContext* process = nullptr;
  std::shared_ptr<CollectiveTracker> tracker;
  std::shared_ptr<TimedCommunicator> timed;  // labels and tracker, shared with the metrics textfile
  ChannelClock clock = ChannelClock::kGpu;
  int nRanks = 0;
  profiler::NameCache collectives, algorithms, protocols, typeSizes;  // the user's thread only (Coll events)
  std::string statsPath;
  StatisticsEntry statsEntry;
  NcclLogger logger;
};

uint64_t hostNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

int typeSize(const char* datatype) { return static_cast<int>(profiler::dataTypeSize(datatype)); }

bool timingRequested(const Environment& env) {
  auto stats = env.get("NCCL_ROCE_STATS");
  auto profile = env.get("NCCL_ROCE_PROFILE");
  return stats && !stats->empty() && !(profile && *profile == "0");
}

// The collective as the tuner counted it (its bytes x nRanks for AllGather and ReduceScatter): the key that joins
// timings to decisions. Without nRanks (v1-v3) those two cannot be sized, so they are not timed.
CollectiveInfo collectiveInfo(ProfilerComm& c, const CollEvent& e) {
  CollectiveInfo info;
  info.collective = c.collectives.lookup(e.func, profiler::collectiveIndex);
  bool perRank = info.collective == kCollAllGather || info.collective == kCollReduceScatter;
  if (perRank && c.nRanks <= 0) info.collective = -1;
  info.bytes = e.count * static_cast<uint64_t>(c.typeSizes.lookup(e.datatype, typeSize)) *
               static_cast<uint64_t>(perRank ? c.nRanks : 1);
  info.algorithm = c.algorithms.lookup(e.algo, profiler::algorithmIndex);
  info.protocol = c.protocols.lookup(e.proto, profiler::protocolIndex);
  info.channels = e.nChannels;
  return info;
}

// The tracker a channel handle names, for stopEvent and recordEventState, which get nothing else.
template <typename F>
void withChannelTracker(void* eHandle, F&& f) {
  std::optional<EventHandle> h = EventHandle::decode(eHandle);
  if (!h || h->kind != HandleKind::kChannel) return;  // groups and collectives need nothing at their stop
  ProcessContext* process = processContext();
  if (process != nullptr) process->trackers().with(h->tracker, f);
}

ProfilerComm* newProfilerComm(ProcessContext& process, const ProfilerCommunicator& comm, ChannelClock clock) {
  auto c = std::make_unique<ProfilerComm>();
  c->process = &process;
  c->clock = clock;
  c->nRanks = comm.nRanks;
  CollectiveTracker::Config config;
  config.source = clock == ChannelClock::kHost ? profiler::TimingSource::kKernelHost : profiler::TimingSource::kKernelGpu;
  c->tracker = process.trackers().add(config);
  if (!c->tracker) return nullptr;
  const Environment& env = process.environment();
  c->statsPath = StatisticsRegistry::pathFor(*env.get("NCCL_ROCE_STATS"), static_cast<long>(::getpid()));
  c->statsEntry = process.statistics().claim(c->statsPath, comm.commId, "profiler");
  c->timed = std::make_shared<TimedCommunicator>(describeCommunicator(process, comm), c->tracker,
                                                 process.statistics(), c->statsPath, c->statsEntry);
  process.metrics().add(c->timed, env);
  return c.release();
}

}  // namespace

ncclResult_t profilerInit(ProcessContext& process, void** context, int* eActivationMask,
                          const ProfilerCommunicator& comm, ChannelClock clock, ncclDebugLogger_t logFunction) noexcept {
  if (context != nullptr) *context = nullptr;
  // NCCL keeps one activation mask for the whole process and reads it at every collective: 0 builds no events.
  if (eActivationMask != nullptr) *eActivationMask = 0;
  if (context == nullptr || eActivationMask == nullptr) return ncclSuccess;
  NcclLogger logger(logFunction);
  try {
    if (!timingRequested(process.environment())) return ncclSuccess;
    if (clock == ChannelClock::kNone) {
      NCCL_ROCE_INFO(logger, kLogProfile, "profiler: this NCCL has no kernel channel events (2.26+ needed); "
                                          "collectives are not timed");
      return ncclSuccess;
    }
    // Group events let the tracker see collectives batched into one kernel.
    *eActivationMask = ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh;
    ProfilerComm* c = newProfilerComm(process, comm, clock);
    if (c == nullptr) {
      NCCL_ROCE_INFO(logger, kLogProfile, "profiler: comm 0x%016llx not timed: %u communicators are timed already",
                     static_cast<unsigned long long>(comm.commHash), profiler::TrackerRegistry::kSlots);
      return ncclSuccess;
    }
    c->logger.setFunction(logFunction);
    *context = c;
    NCCL_ROCE_INFO(c->logger, kLogProfile | kLogInit, "profiler: timing comm 0x%016llx (%s clock), reported to %s",
                   static_cast<unsigned long long>(comm.commHash), clock == ChannelClock::kGpu ? "GPU" : "host",
                   c->statsPath.c_str());
  } catch (...) {
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

void profilerStartGroup(void* context, void** eHandle) noexcept {
  *eHandle = context ? static_cast<ProfilerComm*>(context)->tracker->startGroup() : nullptr;
}

void profilerStartColl(void* context, void** eHandle, const CollEvent& coll) noexcept {
  auto* c = static_cast<ProfilerComm*>(context);
  *eHandle = c ? c->tracker->startCollective(collectiveInfo(*c, coll), coll.group) : nullptr;
}

void profilerStartKernelCh(void* context, void** eHandle, const void* parent, int channel, uint64_t stampNs) noexcept {
  auto* c = static_cast<ProfilerComm*>(context);
  if (c == nullptr) {
    *eHandle = nullptr;
    return;
  }
  if (c->clock != ChannelClock::kGpu) stampNs = hostNowNs();
  *eHandle = c->tracker->startChannel(parent, static_cast<uint32_t>(channel), stampNs);
}

void profilerStartOther(void* context, void** eHandle, uint64_t type) noexcept {
  *eHandle = nullptr;
  // Point-to-point is not timed, but NCCL starts its events whenever kernel channels are on.
  if (context != nullptr && type != ncclProfileP2p) {
    static_cast<ProfilerComm*>(context)->tracker->dropEvent(profiler::Drop::kUnknownEvent);
  }
}

ncclResult_t profilerStopEvent(void* /*eHandle*/) noexcept { return ncclSuccess; }

ncclResult_t profilerStopEventOnHostClock(void* eHandle) noexcept {
  withChannelTracker(eHandle, [eHandle](CollectiveTracker& tracker) {
    if (tracker.source() == profiler::TimingSource::kKernelHost) tracker.stopChannel(eHandle, hostNowNs());
  });
  return ncclSuccess;
}

void profilerStopKernelCh(void* eHandle, uint64_t stampNs) noexcept {
  withChannelTracker(eHandle, [eHandle, stampNs](CollectiveTracker& tracker) {
    if (tracker.source() != profiler::TimingSource::kKernelHost) tracker.stopChannel(eHandle, stampNs);
  });
}

ncclResult_t profilerFinalize(void* context) noexcept {
  auto* c = static_cast<ProfilerComm*>(context);
  if (c == nullptr) return ncclSuccess;
  try {
    c->process->metrics().finish(c->timed);
    c->process->trackers().remove(c->tracker);  // after this no proxy event reaches the tracker
    StatisticsRegistry& statistics = c->process->statistics();
    Status written = statistics.report(c->statsPath, c->statsEntry, timingStatistics(*c->timed));
    if (!written.isOk()) {
      NCCL_ROCE_WARN(c->logger, kLogProfile, "profiler: cannot write statistics: %s", written.toString().c_str());
    }
  } catch (...) {
    NCCL_ROCE_WARN(c->logger, kLogProfile, "profiler: writing statistics failed");
  }
  delete c;
  return ncclSuccess;
}

}  // namespace nccl_roce::plugin

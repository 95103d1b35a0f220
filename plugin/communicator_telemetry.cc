#include "plugin/communicator_telemetry.h"

#include <utility>

namespace nccl_roce::plugin {

void CommunicatorTelemetry::attach(TunerNow now) {
  std::lock_guard<std::mutex> lock(mutex_);
  tunerNow_ = std::move(now);
}

void CommunicatorTelemetry::attach(ProfilerNow now) {
  std::lock_guard<std::mutex> lock(mutex_);
  profilerNow_ = std::move(now);
}

void CommunicatorTelemetry::finish(TunerReport last) {
  TunerNow released;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  tunerLast_ = std::move(last);
  released = std::exchange(tunerNow_, nullptr);
}

void CommunicatorTelemetry::finish(ProfilerReport last) {
  ProfilerNow released;
  std::lock_guard<std::mutex> lock(mutex_);
  profilerLast_ = std::move(last);
  released = std::exchange(profilerNow_, nullptr);
}

void CommunicatorTelemetry::attachSwitchback(const std::shared_ptr<const telemetry::SwitchbackPlan>& plan) {
  SwitchbackSink sink;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    switchbackPlan_ = plan;
    sink = std::exchange(switchbackSink_, nullptr);
  }
  if (sink) sink(plan);
}

void CommunicatorTelemetry::onSwitchback(SwitchbackSink sink) {
  std::shared_ptr<const telemetry::SwitchbackPlan> plan;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan = switchbackPlan_;
    if (!plan) {
      switchbackSink_ = std::move(sink);  // attachSwitchback calls it
      return;
    }
  }
  sink(plan);
}

void CommunicatorTelemetry::detach(Producer producer) {
  TunerNow tuner;  // freed outside the lock
  ProfilerNow profiler;
  SwitchbackSink sink;
  std::lock_guard<std::mutex> lock(mutex_);
  if (producer == Producer::kTuner) tuner = std::exchange(tunerNow_, nullptr);
  if (producer == Producer::kProfiler) {
    profiler = std::exchange(profilerNow_, nullptr);
    sink = std::exchange(switchbackSink_, nullptr);
  }
}

bool CommunicatorTelemetry::hasParts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tunerNow_ || profilerNow_ || tunerLast_ || profilerLast_;
}

telemetry::CommunicatorSnapshot CommunicatorTelemetry::snapshot() const {
  std::optional<TunerReport> tuner;
  std::optional<ProfilerReport> profiler;
  TunerNow tunerNow;
  ProfilerNow profilerNow;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tuner = tunerLast_;
    profiler = profilerLast_;
    if (!tuner) tunerNow = tunerNow_;
    if (!profiler) profilerNow = profilerNow_;
  }
  if (tunerNow) tuner = tunerNow();
  if (profilerNow) profiler = profilerNow();
  telemetry::CommunicatorSnapshot s;
  s.commId = commId_;
  if (profiler) {
    s.nRanks = profiler->nRanks;
    s.nNodes = profiler->nNodes;
    s.rank = profiler->rank;
    s.timings = std::move(profiler->timings);
  }
  if (tuner) {
    s.nRanks = tuner->nRanks;  // the tuner is always told; the profiler not before NCCL 2.27
    s.nNodes = tuner->nNodes;
    s.identity = std::move(tuner->identity);
    s.decisions = std::move(tuner->decisions);
    s.chunkSizes = tuner->chunkSizes;
  }
  if (s.timings)
    telemetry::attributeTimings(*s.timings, s.decisions ? *s.decisions : std::vector<telemetry::DecisionCount>());
  return s;
}

}  // namespace nccl_roce::plugin

// Everything this library keeps for the life of a process, in one object: the loaded policies and their
// per-shape lookups, the statistics files, and the env and net plugins with their resolution. The core
// libraries (common/, gid/, tuner/) keep no caches of their own, but for the dlopened libibverbs table
// (gid/verbs.cc, loaded once, as NCCL keeps its own handle); this is the one place other process-wide state
// lives. The exported entry points reach it through processContext(); tests construct their own, with their
// own environment and resolution.
//
// The profiler plugin's trackers live here too (its stop events carry only a handle, which names a tracker in
// this registry), with the metrics textfile; it writes its timings into the same TelemetryFiles entries as
// the tuner's decisions.
//
// A policy pinned by content digest (NCCL_ROCE_POLICY_DIGEST) is part of what PolicyRegistry loads: a refusal,
// which tunerInit (plugin/tuner_plugin.cc, the one place that returns an error to NCCL) turns into a failed init.
#pragma once

#include <atomic>
#include <chrono>

#include "common/env.h"
#include "plugin/bounded_resolution.h"
#include "plugin/env_plugin.h"
#include "plugin/metrics_textfile.h"
#include "plugin/nccl_logger.h"
#include "plugin/net_plugin.h"
#include "plugin/policy_registry.h"
#include "plugin/served_settings.h"
#include "plugin/telemetry_file.h"
#include "profiler/tracker_registry.h"

namespace nccl_roce::plugin {

// What a process context reads from and writes to; tests substitute them. Empty members take the real ones.
struct ProcessSeams {
  SettingsResolver resolver;  // default: resolveServedSettings over this context's policies
  NetPlugin::SetEnv setEnv;   // default: setenv(name, value, 0) on the process environment
  std::chrono::milliseconds resolutionDeadline = kResolutionDeadline;
};

class ProcessContext {
 public:
  // `env` must outlive the context and any resolution it abandons (the process environment does).
  explicit ProcessContext(const Environment& env, const ProcessSeams& seams = {});
  ProcessContext(const ProcessContext&) = delete;
  ProcessContext& operator=(const ProcessContext&) = delete;

  const Environment& environment() const { return env_; }
  PolicyRegistry& policies() { return policies_; }
  TelemetryFiles& telemetryFiles() { return telemetryFiles_; }
  EnvPlugin& envPlugin() { return envPlugin_; }
  NetPlugin& netPlugin() { return netPlugin_; }
  profiler::TrackerRegistry& trackers() { return trackers_; }
  MetricsTextfile& metrics() { return metrics_; }
  // The logger NCCL handed the latest tuner or profiler init: where the statistics and textfile writers say a failed
  // write, from whichever thread meets it (plugin/write_failures.h). A null one leaves the last.
  void useNcclLogger(ncclDebugLogger_t logFunction) {
    if (logFunction != nullptr) writeLog_.setFunction(logFunction);
  }

 private:
  SettingsResolver resolverFor(SettingsResolver given);

  const Environment& env_;
  NcclLogger writeLog_;  // before the writers that hold it
  PolicyRegistry policies_;
  TelemetryFiles telemetryFiles_;
  EnvPlugin envPlugin_;
  NetPlugin netPlugin_;
  profiler::TrackerRegistry trackers_;
  MetricsTextfile metrics_;
};

namespace detail {
// The context once built: constant-initialised (nothing runs before main), never destroyed.
extern std::atomic<ProcessContext*> builtProcessContext;
ProcessContext* buildProcessContext() noexcept;
}  // namespace detail

// This process's context over the process environment, built on first use and never destroyed: NCCL may call
// in from atexit handlers after static destructors have run. Building it pins this library
// (plugin/library_pin.h): NCCL's dlclose at its last communicator then leaves the context, the records of every
// communicator finalized so far and the policies the process decides by in place for the next communicator,
// which NCCL opens the library again for. nullptr when it cannot be built (out of memory);
// the next call tries again, and callers meanwhile leave NCCL to its own behaviour. Inline: the profiler's
// channel stops find their tracker through it, once per collective.
inline ProcessContext* processContext() noexcept {
  ProcessContext* context = detail::builtProcessContext.load(std::memory_order_acquire);
  return context != nullptr ? context : detail::buildProcessContext();
}
// The same if built already (nullptr otherwise), without building it: for code that must make no call.
inline ProcessContext* processContextIfBuilt() noexcept {
  return detail::builtProcessContext.load(std::memory_order_acquire);
}

}  // namespace nccl_roce::plugin

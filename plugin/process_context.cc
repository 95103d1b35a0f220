#include "plugin/process_context.h"

#include <cstdlib>
#include <mutex>

#include "plugin/library_pin.h"

namespace nccl_roce::plugin {

namespace {

int setProcessEnv(const char* name, const char* value) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): once, in NCCL's net init, before its IB transport reads the settings
  return ::setenv(name, value, /*overwrite=*/0);
}

TelemetryOptions saidThrough(TelemetryOptions options, Logger& logger) {
  options.logger = &logger;
  return options;
}

}  // namespace

ProcessContext::ProcessContext(const Environment& env, const ProcessSeams& seams)
    : env_(env),
      telemetryFiles_(saidThrough(telemetryOptionsFrom(env), writeLog_)),
      envPlugin_(env, resolverFor(seams.resolver), seams.resolutionDeadline),
      netPlugin_(env, resolverFor(seams.resolver), &envPlugin_, seams.setEnv ? seams.setEnv : setProcessEnv,
                 seams.resolutionDeadline),
      metrics_(kMetricsInterval, writeLog_, &telemetryFiles_.failures()) {}

SettingsResolver ProcessContext::resolverFor(SettingsResolver given) {
  if (given) return given;
  // policies_ is constructed before the plugins that hold this resolver, and outlives them.
  return [this](const Environment& env, Logger& log) { return resolveServedSettings(env, log, policies_); };
}

namespace detail {

std::atomic<ProcessContext*> builtProcessContext{nullptr};

ProcessContext* buildProcessContext() noexcept {
  static std::mutex building;  // constant-initialised too
  try {
    std::lock_guard<std::mutex> lock(building);
    ProcessContext* context = builtProcessContext.load(std::memory_order_relaxed);
    if (context == nullptr) {
      context = new ProcessContext(processEnvironment());
      keepThisLibraryLoaded();
      builtProcessContext.store(context, std::memory_order_release);
    }
    return context;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace detail

}  // namespace nccl_roce::plugin

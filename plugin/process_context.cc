#include "plugin/process_context.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace nccl_roce::plugin {

namespace {

int setProcessEnv(const char* name, const char* value) { return ::setenv(name, value, /*overwrite=*/0); }

}  // namespace

ProcessContext::ProcessContext(const Environment& env, ProcessSeams seams)
    : env_(env),
      envPlugin_(env, resolverFor(seams.resolver), seams.resolutionDeadline),
      netPlugin_(env, resolverFor(seams.resolver), &envPlugin_, seams.setEnv ? seams.setEnv : setProcessEnv,
                 seams.resolutionDeadline) {}

SettingsResolver ProcessContext::resolverFor(SettingsResolver given) {
  if (given) return given;
  // policies_ is constructed before the plugins that hold this resolver, and outlives them.
  return [this](const Environment& env, Logger& log) { return resolveServedSettings(env, log, policies_); };
}

ProcessContext* processContext() noexcept {
  // The process-wide state of this library hangs off these two statics, both constant-initialised (nothing
  // runs before main) and never destroyed.
  static std::atomic<ProcessContext*> instance{nullptr};
  static std::mutex building;
  ProcessContext* context = instance.load(std::memory_order_acquire);
  if (context != nullptr) return context;
  try {
    std::lock_guard<std::mutex> lock(building);
    context = instance.load(std::memory_order_relaxed);
    if (context == nullptr) {
      context = new ProcessContext(processEnvironment());
      instance.store(context, std::memory_order_release);
    }
    return context;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace nccl_roce::plugin

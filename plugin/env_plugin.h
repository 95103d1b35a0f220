// The env plugin (NCCL >= 2.28.7): NCCL asks it for every variable it reads. It serves the resolved RDMA
// settings and policy defaults, and passes everything else through to the real environment; a variable the
// user set always wins. Returned pointers stay valid until finalize: every distinct value returned for a name
// is kept (NCCL may still hold an older pointer when another thread asks for the same name).
// Init is bounded: the resolution runs with a deadline (plugin/bounded_resolution.h), past which nothing is
// served and every variable passes through (docs/environment.md states the worst case).
#pragma once

#include <chrono>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/env.h"
#include "plugin/bounded_resolution.h"
#include "plugin/nccl_logger.h"
#include "plugin/served_settings.h"

namespace nccl_roce::plugin {

class EnvPlugin {
 public:
  // `env` must outlive the plugin and any resolution it abandons (the process environment does).
  EnvPlugin(const Environment& env, SettingsResolver resolver,
            std::chrono::milliseconds resolutionDeadline = kResolutionDeadline)
      : env_(env), resolver_(std::move(resolver)), deadline_(resolutionDeadline) {}

  // Resolves once (later calls only update the logger), within the deadline. Never fails.
  void init(int ncclMajor, int ncclMinor, int ncclPatch, const char* suffix, ncclDebugLogger_t logFunction) noexcept;
  // On any internal failure (out of memory), the process environment's own value: what NCCL would read
  // without this plugin, so a variable the user set is never lost.
  const char* getEnv(const char* name) noexcept;
  void finalize() noexcept;

  // Whether init ran: the net plugin then leaves the environment alone.
  bool serving() const;

  // NCCL's env v1 (2.28.7 - 2.28.x) passes no logger: what init would have logged is kept and written by the
  // first plugin of this library that has NCCL's logger (net or tuner init), once.
  void flushPendingLog(Logger& log);

 private:
  struct PendingLine {
    LogLevel level;
    std::string text;
  };
  static std::vector<PendingLine> linesFor(const ServedSettings& served, const std::string& ncclVersion);
  void serve(ServedSettings served, std::vector<PendingLine> lines, bool haveLogger);
  const char* lookup(const char* name);

  const Environment& env_;
  SettingsResolver resolver_;
  std::chrono::milliseconds deadline_;
  NcclLogger logger_;
  // Held for the whole of init, so a concurrent init returns only once the settings are served (readers use
  // mutex_ and are never blocked by a resolution in progress).
  std::mutex initMutex_;
  mutable std::mutex mutex_;
  bool initialized_ = false;
  std::map<std::string, std::string> served_;
  std::unordered_map<std::string, std::list<std::string>> returned_;
  std::vector<PendingLine> pending_;
};

}  // namespace nccl_roce::plugin

// The env plugin (NCCL >= 2.28.7): NCCL asks it for every variable it reads. It serves the resolved RDMA
// settings and policy defaults, and passes everything else through to the real environment; a variable the
// user set always wins. Returned pointers stay valid until finalize: every distinct value returned for a name
// is kept (NCCL may still hold an older pointer when another thread asks for the same name).
#pragma once

#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/env.h"
#include "plugin/nccl_logger.h"
#include "plugin/served_settings.h"

namespace nccl_roce::plugin {

class EnvPlugin {
 public:
  EnvPlugin(const Environment& env, SettingsResolver resolver) : env_(env), resolver_(std::move(resolver)) {}

  // Resolves once (later calls only update the logger). Never fails.
  void init(int ncclMajor, int ncclMinor, int ncclPatch, const char* suffix, ncclDebugLogger_t logFunction) noexcept;
  const char* getEnv(const char* name) noexcept;
  void finalize() noexcept;

  // Whether init ran: the net plugin then leaves the environment alone.
  bool serving() const;

  // NCCL's env v1 (2.28.7 - 2.28.x) passes no logger: what init would have logged is kept and written by the
  // first plugin of this library that has NCCL's logger (net or tuner init), once.
  void flushPendingLog(Logger& log);

 private:
  const Environment& env_;
  SettingsResolver resolver_;
  NcclLogger logger_;
  mutable std::mutex mutex_;
  bool initialized_ = false;
  std::map<std::string, std::string> served_;
  std::unordered_map<std::string, std::list<std::string>> returned_;
  struct PendingLine {
    LogLevel level;
    std::string text;
  };
  std::vector<PendingLine> pending_;
};

// The process-wide instance behind ncclEnvPlugin_v1/_v2.
EnvPlugin& processEnvPlugin();

}  // namespace nccl_roce::plugin

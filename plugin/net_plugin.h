// The net plugin, for NCCL versions without env plugins (2.19 - 2.28.6) or where none is configured. NCCL calls
// its init before the internal IB transport reads NCCL_IB_HCA and friends (docs/nccl-versions.md), so init
// writes the resolved settings into the process environment (never over a variable the user set), logs what
// it did, and then reports zero devices: NCCL disables this plugin and carries traffic on its own IB transport.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

#include "common/env.h"
#include "plugin/bounded_resolution.h"
#include "plugin/env_plugin.h"
#include "plugin/nccl/err.h"
#include "plugin/nccl_logger.h"
#include "plugin/served_settings.h"

namespace nccl_roce::plugin {

class NetPlugin {
 public:
  using SetEnv = std::function<int(const char* name, const char* value)>;  // setenv(name, value, 0)

  // envPlugin: this library's env plugin, whose serving makes this one step aside (null: none). `env` must
  // outlive the plugin and any resolution it abandons (the process environment does).
  NetPlugin(const Environment& env, SettingsResolver resolver, EnvPlugin* envPlugin, SetEnv setEnv,
            std::chrono::milliseconds resolutionDeadline = kResolutionDeadline)
      : env_(env),
        resolver_(std::move(resolver)),
        envPlugin_(envPlugin),
        setEnv_(std::move(setEnv)),
        deadline_(resolutionDeadline) {}

  // Applies once per process (net v11+ call init once per communicator), the resolution within the deadline.
  // Always succeeds.
  ncclResult_t init(ncclDebugLogger_t logFunction) noexcept;
  static ncclResult_t devices(int* ndev) noexcept;

 private:
  void apply();

  const Environment& env_;
  SettingsResolver resolver_;
  EnvPlugin* envPlugin_;
  SetEnv setEnv_;
  std::chrono::milliseconds deadline_;
  NcclLogger logger_;
  std::once_flag once_;
};

inline constexpr const char* kNetName = "nccl-roce";

}  // namespace nccl_roce::plugin

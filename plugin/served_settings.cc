#include "plugin/served_settings.h"

#include "common/strings.h"
#include "gid/resolve.h"
#include "plugin/policy_registry.h"

namespace nccl_roce::plugin {

// NVSHMEM and UCX share the process but not NCCL's plugins: they read their variables at their own init, which
// may come before or after NCCL's. Setting them from inside NCCL would make their devices depend on init order,
// so they are left to `nccl-roce env` in the entrypoint (docs/kubernetes.md), and NCCL gets only its own.
constexpr const char* kNcclPrefix = "NCCL_";

ServedSettings resolveServedSettings(const Environment& env, Logger& log, PolicyRegistry& policies) {
  ServedSettings served;
  gid::Resolution resolution = gid::resolveThisProcess(env, log);
  if (!resolution.anySelected()) {
    served.failure = resolution.error;
  } else {
    for (const auto& setting : resolution.env) {
      if (!setting.keptFromUser && startsWith(setting.name, kNcclPrefix)) served.values[setting.name] = setting.value;
    }
    served.lines = resolution.summaryLines(kNcclPrefix);
  }
  // Policy defaults apply whether or not RDMA resolved: they are tuning, not device selection.
  for (const auto& [name, value] : policies.environmentDefaults(env)) {
    if (env.get(name) || served.values.count(name) != 0) continue;
    served.values[name] = value;
    served.lines.push_back(name + "=" + value + " (default of the tuner policy)");
  }
  return served;
}

}  // namespace nccl_roce::plugin

#include "plugin/served_settings.h"

#include "gid/resolve.h"
#include "tuner/policy_loader.h"

namespace nccl_roce::plugin {

ServedSettings resolveServedSettings(const Environment& env, Logger& log) {
  ServedSettings served;
  gid::Resolution resolution = gid::resolveThisProcess(env, log);
  if (!resolution.anySelected()) {
    served.failure = resolution.error;
  } else {
    for (const auto& setting : resolution.env) {
      if (!setting.keptFromUser) served.values[setting.name] = setting.value;
    }
    served.lines = resolution.summaryLines();
  }
  // Policy defaults apply whether or not RDMA resolved: they are tuning, not device selection.
  for (const auto& [name, value] : tuner::policyEnvironmentDefaults(env)) {
    if (env.get(name) || served.values.count(name) != 0) continue;
    served.values[name] = value;
    served.lines.push_back(name + "=" + value + " (default of the tuner policy)");
  }
  return served;
}

}  // namespace nccl_roce::plugin

// What the env and net plugins give NCCL: the resolver's RDMA settings and the active policy's environment
// defaults, minus anything the user set. Computed once per process; a failure means "serve nothing".
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/log.h"

namespace nccl_roce::plugin {

struct ServedSettings {
  std::map<std::string, std::string> values;  // never contains a variable the user set
  std::vector<std::string> lines;             // what was chosen and why, for one INFO block
  std::string failure;                        // non-empty: resolution failed, nothing is served (one WARN)
};

using SettingsResolver = std::function<ServedSettings(const Environment&, Logger&)>;

class PolicyRegistry;

// The real one: gid::resolveThisProcess plus the environment defaults of the policy `policies` holds for env.
ServedSettings resolveServedSettings(const Environment& env, Logger& log, PolicyRegistry& policies);

}  // namespace nccl_roce::plugin

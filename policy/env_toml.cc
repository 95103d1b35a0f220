#include "policy/env_toml.h"

#include "common/strings.h"
#include "policy/nccl_variables.h"
#include "policy/rule_text.h"

namespace nccl_roce::policy {

namespace {

// Why `name` cannot be served to NCCL; empty when it can. Unknown names are errors, not warnings: a misspelled
// variable is read by nobody, so the policy silently does not do what it says. A variable of an NCCL newer than
// the table is still one line away: in the container's environment, where it also wins over any policy.
std::string nameProblem(const std::string& name) {
  if (!startsWith(name, "NCCL_") || startsWith(name, "NCCL_ROCE_")) {
    return "[env] sets NCCL variables only (NCCL_*, not NCCL_ROCE_*): '" + name +
           "' would not reach what reads it; export it in the container instead";
  }
  const NcclVariable* variable = findNcclVariable(name);
  if (variable == nullptr) {
    std::string closest = closestNcclVariable(name);
    if (!closest.empty()) return "[env] " + name + " is not a variable NCCL reads: did you mean " + closest + "?";
    return "[env] " + name + " is not a variable NCCL " + kNcclVariablesReleases +
           " reads; if a newer NCCL reads it, export it in the container instead";
  }
  if (variable->readBeforePlugins) {
    return "[env] " + name +
           " is read before NCCL loads any plugin, so no policy can set it; export it in the "
           "container instead";
  }
  return "";
}

}  // namespace

void readEnvTable(TomlReader& r, const toml::node& env, Policy& policy) {
  const toml::table* table = env.as_table();
  if (table == nullptr) {
    r.error(env, "[env] must be a table of NAME = \"value\"");
    return;
  }
  for (auto&& [key, value] : *table) {
    const std::string name(key.str());
    if (std::string problem = nameProblem(name); !problem.empty()) {
      r.error(key.source(), problem);
      continue;
    }
    std::optional<std::string> text = r.string(value, "an [env] value");
    if (!text) continue;
    if (std::string problem = ncclValueProblem(*findNcclVariable(name), *text); !problem.empty()) {
      r.error(value, "[env] " + name + " = " + tomlString(*text) + ": " + problem);
      continue;
    }
    policy.env.emplace_back(name, *text);
  }
}

}  // namespace nccl_roce::policy

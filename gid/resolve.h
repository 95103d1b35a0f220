// The resolver's entry points: discovery -> selection -> rendering, with every source injectable.
// This is what the env and net plugins call at NCCL init and what `nccl-roce detect` prints.
// Never throws; safe to call from several threads at once (no shared mutable state).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/log.h"
#include "gid/address_source.h"
#include "gid/render.h"
#include "gid/selection.h"
#include "gid/sysfs_reader.h"
#include "gid/verbs.h"

namespace nccl_roce::gid {

struct Resolution {
  std::vector<PortDecision> ports;  // every device port found, selected or not, with its reason
  std::optional<LinkLayer> fabric;
  std::optional<AddressFamily> family;
  std::vector<EnvSetting> env;  // resolved settings, and the user's own values reported as kept
  std::vector<std::string> warnings;
  std::string error;  // one line; non-empty exactly when no port was selected

  // Where the facts came from, for logs and `detect`.
  std::string sysfsRoot;
  std::string addressSource;  // "getifaddrs", a file name, or "none (matched by netdev)"
  std::string verbsSource;    // "libibverbs.so.1", or why verbs was not used
  size_t filesRead = 0;
  // What discovery read (every device, port and examined GID entry), for tools such as `nccl-roce doctor`.
  std::shared_ptr<const Machine> machine;

  bool anySelected() const { return error.empty(); }
  // The value we resolved for `name`; nullopt when the user set it (kept) or we do not set it.
  std::optional<std::string> resolvedValue(const std::string& name) const;
  // What was chosen and why, a few lines for NCCL's INFO log: the selected ports, the settings whose names
  // start with `settingPrefix` (all when empty), the warnings.
  std::vector<std::string> summaryLines(const std::string& settingPrefix = "") const;
};

struct ResolverSources {
  const SysfsReader* sysfs = nullptr;
  const AddressSource* addresses = nullptr;  // nullptr: addresses unknown, GIDs matched by netdev alone
  std::string addressSourceName;
  const IbvFunctions* verbs = nullptr;  // nullptr: sysfs alone
  std::string verbsSourceName;
};

Resolution resolve(const ResolverSources& sources, const Environment& user);

// The sysfs root for this process: NCCL_ROCE_SYSFS_ROOT unless the process is privileged (setuid), else /sys.
// *note says why when the variable was ignored.
std::string sysfsRootFor(const Environment& env, std::string* note);

// The real sources of this process: sysfs (above), getifaddrs and libibverbs when reading the real /sys.
Resolution resolveThisProcess(const Environment& env, Logger& log);

}  // namespace nccl_roce::gid

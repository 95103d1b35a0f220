// Reads the machine into gid/machine.h's model. Reads only what selection can use: GID attributes
// (types, ndevs) only for entries that could qualify, nothing beyond the state files for ports that are
// down. Every failure becomes a recorded problem on the entry it concerns; the scan never aborts.
#pragma once

#include <optional>
#include <vector>

#include "gid/machine.h"
#include "gid/sysfs_reader.h"
#include "gid/verbs.h"

namespace nccl_roce::gid {

struct DiscoveryInputs {
  const SysfsReader* sysfs = nullptr;
  // nullopt: unknown; GIDs are then tied to this namespace by netdev visibility alone.
  std::optional<std::vector<InterfaceAddress>> addresses;
  // nullptr: libibverbs not available (sysfs alone).
  const std::vector<VerbsDevice>* verbs = nullptr;
};

Machine discoverMachine(const DiscoveryInputs& inputs);

}  // namespace nccl_roce::gid

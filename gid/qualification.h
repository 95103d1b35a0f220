// Whether one GID entry qualifies (docs/resolver.md, rule 2), the rule selection applies per entry and discovery
// uses to stop reading a table once its answer is settled.
#pragma once

#include <optional>

#include "gid/machine.h"

namespace nccl_roce::gid {

// Why one GID entry does not qualify, in the order the rules test it.
enum class GidRejection {
  kEmpty,               // all-zero value
  kIpv6LinkLocal,       // fe80::/10
  kAddressNotHere,      // its address is not configured in this network namespace
  kNetdevUnreadable,    // gid_attrs/ndevs/<N> could not be read
  kNetdevElsewhere,     // its netdev is not visible in this network namespace
  kTypeUnreadable,      // gid_attrs/types/<N> could not be read
  kNotRoceV2,           // RoCE v1 (or a type we do not know)
  kAddressNotOnNetdev,  // configured here, but not on the netdev the entry belongs to
};

// Why `entry` does not qualify on its own; nullopt when it does. Its address is checked against its netdev's
// addresses only when the namespace's addresses are known.
std::optional<GidRejection> gidRejection(const Machine& machine, const GidEntry& entry);

}  // namespace nccl_roce::gid

// Which ports NCCL should use, and which GID each RoCE port needs: the rules of DESIGN.md section 3 as a
// pure function of the discovered Machine, with a plain-words reason for every port, selected or not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gid/machine.h"

namespace nccl_roce::gid {

struct PortDecision {
  std::string device;
  int port = 0;  // 0: the device's ports could not be listed
  LinkLayer linkLayer = LinkLayer::kUnknown;
  std::string state;  // "ACTIVE", "DOWN", ... ("" when unreadable)
  std::optional<double> rateGbps;
  bool selected = false;
  std::optional<int> gidIndex;  // RoCE ports that qualified
  std::optional<GidValue> gid;
  std::optional<std::string> netdev;
  std::string reason;
};

struct Selection {
  std::vector<PortDecision> ports;  // every port found, natural device order then port
  std::optional<LinkLayer> fabric;  // the fabric of the selected ports
  std::optional<AddressFamily> family;  // RoCE: the one address family of the selected GIDs
  std::vector<std::string> warnings;

  bool anySelected() const;
  std::vector<const PortDecision*> selected() const;
};

// NCCL takes at most this many device-ports (MAX_IB_DEVS).
inline constexpr size_t kNcclMaxDevices = 32;

Selection selectPorts(const Machine& machine);

}  // namespace nccl_roce::gid

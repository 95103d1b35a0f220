// Which ports NCCL should use, and which GID each RoCE port needs: the rules of DESIGN.md section 3 as a
// pure function of the discovered Machine, with a plain-words reason for every port, selected or not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gid/hca_list.h"
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
  // Where the device sits, as sysfs shows it (for locality and for telling SR-IOV VFs from PFs).
  std::optional<std::string> pciAddress;
  std::optional<int> numaNode;
  FunctionRole role = FunctionRole::kUnknown;
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

struct SelectionOptions {
  // The user's own NCCL_IB_HCA: a port it does not admit is never selected, since NCCL would not use it, so
  // NVSHMEM, UCX and the GID index follow the user's choice of devices.
  std::optional<NcclHcaList> userHcaList;
  std::string userHcaText;  // as the user wrote it, for reasons and warnings
};

Selection selectPorts(const Machine& machine, const SelectionOptions& options = {});

}  // namespace nccl_roce::gid

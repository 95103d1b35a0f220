// Which ports NCCL should use, and which GID each RoCE port needs: the rules of docs/resolver.md as a
// pure function of the discovered Machine. Every port gets a decision, selected or not; why a port is not
// selected is data (ExclusionReason), put into words at the edge (gid/reasons.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gid/hca_list.h"
#include "gid/machine.h"
#include "gid/qualification.h"

namespace nccl_roce::gid {

// Why a port is not selected, one type per rule, each with what its words need.
namespace excluded {
struct DeviceUnusable {
  std::string problem;
};  // the device's ports could not be listed; empty: it has none
struct StateUnreadable {
  std::string problem;
};  // e.g. "state missing"; empty: no detail
struct NotActive {
  PortStateReading state;
};
struct PhysicalLinkDown {
  PhysStateReading physState;
};
struct CannotOpen {
  std::string verbsError;
};  // sysfs lists it, ibv_open_device fails in this pod
struct UnknownLinkLayer {};
struct GidTableUnreadable {};
struct NoQualifyingGid {
  std::map<GidRejection, int> rejected;
};  // entries per cause
struct NotAdmittedByUserList {
  std::string userList;
};  // the user's NCCL_IB_HCA
struct OtherFabric {
  size_t activeInfinibandPorts;
};  // InfiniBand chosen, this port is Ethernet
struct OtherFamily {
  AddressFamily selected;
};  // qualifies only in the other address family
struct SlowerThanRails {
  double gbps;
  double fastestGbps;
};
struct PastDeviceLimit {
  size_t limit;
};  // NCCL's MAX_IB_DEVS
}  // namespace excluded

using ExclusionReason =
    std::variant<excluded::DeviceUnusable, excluded::StateUnreadable, excluded::NotActive, excluded::PhysicalLinkDown,
                 excluded::CannotOpen, excluded::UnknownLinkLayer, excluded::GidTableUnreadable,
                 excluded::NoQualifyingGid, excluded::NotAdmittedByUserList, excluded::OtherFabric,
                 excluded::OtherFamily, excluded::SlowerThanRails, excluded::PastDeviceLimit>;

struct PortDecision {
  std::string device;
  int port = 0;  // 0: the device's ports could not be listed
  LinkLayer linkLayer = LinkLayer::kUnknown;
  std::optional<PortStateReading> state;  // nullopt when unreadable
  std::optional<double> rateGbps;
  bool selected = false;
  std::optional<ExclusionReason> exclusion;  // set exactly when not selected
  std::optional<int> gidIndex;               // RoCE ports that qualified
  std::optional<GidValue> gid;
  std::optional<std::string> netdev;
  // Where the device sits, as sysfs shows it (for locality and for telling SR-IOV VFs from PFs).
  std::optional<std::string> pciAddress;
  std::optional<int> numaNode;
  FunctionRole role = FunctionRole::kUnknown;

  bool isActive() const { return state && state->code == PortState::kActive; }
};

struct Selection {
  std::vector<PortDecision> ports;      // every port found, natural device order then port
  std::optional<LinkLayer> fabric;      // the fabric of the selected ports
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

// NCCL uses every ACTIVE port a user-set NCCL_IB_HCA admits, whatever its GIDs: those of `ports` it admits that
// were not selected, where a user-set list goes wrong.
std::vector<const PortDecision*> admittedButNotSelected(const std::vector<PortDecision>& ports,
                                                        const NcclHcaList& userList);

}  // namespace nccl_roce::gid

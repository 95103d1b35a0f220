// What discovery learned about this machine, as plain data: RDMA devices and ports from sysfs (and verbs),
// the netdevs visible in this network namespace and their addresses. Selection (gid/selection.h) reads
// only this, so it can be tested with hand-built machines as well as with fake sysfs trees.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gid/address_source.h"
#include "gid/gid_value.h"

namespace nccl_roce::gid {

enum class LinkLayer { kInfiniBand, kEthernet, kUnknown };
const char* linkLayerName(LinkLayer layer);  // "InfiniBand", "Ethernet", "Unknown"

// gid_attrs/types/<N>: "RoCE v2", or "IB/RoCE v1" (also what IB ports and RoCE v1 entries read).
enum class GidType { kRoceV2, kRoceV1, kOther };

// ib_port_state: the number ports/<p>/state prints before the name ("4: ACTIVE"). A number the enum does not
// name is kept as it is (the underlying type holds it) and never passes as ACTIVE.
enum class PortState : int { kNop = 0, kDown = 1, kInit = 2, kArmed = 3, kActive = 4, kActiveDefer = 5 };
// ib_port_phys_state, ports/<p>/phys_state ("5: LinkUp").
enum class PhysState : int {
  kSleep = 1,
  kPolling = 2,
  kDisabled = 3,
  kTraining = 4,
  kLinkUp = 5,
  kLinkErrorRecovery = 6,
  kPhyTest = 7
};

// A state as sysfs prints it, "4: ACTIVE": the number is what counts (ACTIVE_DEFER must not pass as ACTIVE),
// the name is what users are shown.
template <typename State>
struct NumberedState {
  State code{};
  std::string text;
  int number() const { return static_cast<int>(code); }
};
using PortStateReading = NumberedState<PortState>;
using PhysStateReading = NumberedState<PhysState>;

// Why discovery did not read a GID entry's attributes: its value alone settles that it cannot qualify.
enum class SkipReason { kNotSkipped, kIpv6LinkLocal, kAddressNotHere };

struct GidEntry {
  int index = 0;
  GidValue value;
  std::optional<GidType> type;        // nullopt: not read, or unreadable (see typeProblem)
  std::optional<std::string> netdev;  // nullopt: not read, or unreadable (see netdevProblem)
  std::string typeProblem;
  std::string netdevProblem;
  SkipReason skipped = SkipReason::kNotSkipped;
  bool valueFromVerbs = false;
};

// One entry at an index the user forces: its value may be zero, unreadable or missing.
struct ForcedGid {
  GidEntry entry;            // value zero when the entry is empty
  std::string valueProblem;  // non-empty when gids/<N> could not be read ("missing", "unreadable (...)")
};

struct PortInfo {
  int number = 0;
  std::optional<PortStateReading> state;      // ports/<p>/state
  std::optional<PhysStateReading> physState;  // ports/<p>/phys_state
  LinkLayer linkLayer = LinkLayer::kUnknown;
  std::optional<double> rateGbps;  // ports/<p>/rate, "100 Gb/sec (4X EDR)" -> 100
  std::string rateText;
  std::vector<GidEntry> gids;         // non-zero entries, ascending index
  int emptyGidEntries = 0;            // all-zero or unreadable gids/<N>
  std::vector<std::string> problems;  // attributes that could not be read, in plain words
  bool gidsScanned = false;           // whether the GID table was read at all
  // Entries read in full, whatever they hold, because the user forces their index (NCCL_IB_GID_INDEX and
  // friends): what NCCL will use on this port. Ascending index.
  std::vector<ForcedGid> forced;
};

enum class FunctionRole { kUnknown, kPhysicalFunction, kVirtualFunction };
const char* functionRoleName(FunctionRole role);  // "unknown", "PF", "VF"

struct DeviceInfo {
  std::string name;
  std::optional<std::string> pciAddress;  // basename of the device link, e.g. "0000:17:00.0"
  std::optional<int> numaNode;            // -1 on single-node machines is reported as nullopt
  FunctionRole role = FunctionRole::kUnknown;
  std::vector<PortInfo> ports;  // ascending port number
  std::vector<std::string> problems;
  // Set when libibverbs is available and cannot open this device: sysfs lists every host HCA in shared
  // mode, but the pod can only use the ones whose /dev/infiniband entries it was given.
  std::string verbsOpenError;
};

struct Machine {
  std::vector<DeviceInfo> devices;                         // natural name order
  std::set<std::string> visibleNetdevs;                    // class/net/<ifname> of this namespace
  std::optional<std::vector<InterfaceAddress>> addresses;  // nullopt: unknown (match by netdev alone)
  std::vector<std::string> warnings;
  std::string noDevicesReason;  // why `devices` is empty, when the listing itself failed

  // Addresses configured on `netdev` (empty when unknown or none).
  std::vector<GidValue> addressesOf(const std::string& netdev) const;
  bool hasAddress(const GidValue& address) const;
};

}  // namespace nccl_roce::gid

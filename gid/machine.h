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

// "4: ACTIVE" -> {4, "ACTIVE"}; the number is what counts (ACTIVE_DEFER must not pass as ACTIVE).
struct NumberedState {
  int code = 0;
  std::string text;
};

struct GidEntry {
  int index = 0;
  GidValue value;
  std::optional<GidType> type;       // nullopt: not read, or unreadable (see typeProblem)
  std::optional<std::string> netdev;  // nullopt: not read, or unreadable (see netdevProblem)
  std::string typeProblem;
  std::string netdevProblem;
  // Why discovery did not read this entry's attributes (it cannot qualify), e.g. "address not configured
  // in this network namespace"; empty when they were read.
  std::string notExamined;
  bool valueFromVerbs = false;
};

struct PortInfo {
  int number = 0;
  std::optional<NumberedState> state;      // ports/<p>/state
  std::optional<NumberedState> physState;  // ports/<p>/phys_state
  LinkLayer linkLayer = LinkLayer::kUnknown;
  std::optional<double> rateGbps;          // ports/<p>/rate, "100 Gb/sec (4X EDR)" -> 100
  std::string rateText;
  std::vector<GidEntry> gids;              // non-zero entries, ascending index
  int emptyGidEntries = 0;                 // all-zero or unreadable gids/<N>
  std::vector<std::string> problems;       // attributes that could not be read, in plain words
  bool gidsScanned = false;                // whether the GID table was read at all
};

enum class FunctionRole { kUnknown, kPhysicalFunction, kVirtualFunction };
const char* functionRoleName(FunctionRole role);  // "unknown", "PF", "VF"

struct DeviceInfo {
  std::string name;
  std::optional<std::string> pciAddress;  // basename of the device link, e.g. "0000:17:00.0"
  std::optional<int> numaNode;            // -1 on single-node machines is reported as nullopt
  FunctionRole role = FunctionRole::kUnknown;
  std::vector<PortInfo> ports;            // ascending port number
  std::vector<std::string> problems;
  // Set when libibverbs is available and cannot open this device: sysfs lists every host HCA in shared
  // mode, but the pod can only use the ones whose /dev/infiniband entries it was given.
  std::string verbsOpenError;
};

struct Machine {
  std::vector<DeviceInfo> devices;             // natural name order
  std::set<std::string> visibleNetdevs;        // class/net/<ifname> of this namespace
  std::optional<std::vector<InterfaceAddress>> addresses;  // nullopt: unknown (match by netdev alone)
  std::vector<std::string> warnings;

  // Addresses configured on `netdev` (empty when unknown or none).
  std::vector<GidValue> addressesOf(const std::string& netdev) const;
  bool hasAddress(const GidValue& address) const;
};

}  // namespace nccl_roce::gid

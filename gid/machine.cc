#include "gid/machine.h"

namespace nccl_roce::gid {

const char* linkLayerName(LinkLayer layer) {
  switch (layer) {
    case LinkLayer::kInfiniBand:
      return "InfiniBand";
    case LinkLayer::kEthernet:
      return "Ethernet";
    case LinkLayer::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

const char* functionRoleName(FunctionRole role) {
  switch (role) {
    case FunctionRole::kPhysicalFunction:
      return "PF";
    case FunctionRole::kVirtualFunction:
      return "VF";
    case FunctionRole::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::vector<GidValue> Machine::addressesOf(const std::string& netdev) const {
  std::vector<GidValue> out;
  if (!addresses) return out;
  for (const auto& entry : *addresses) {
    if (entry.ifname == netdev) out.push_back(entry.address);
  }
  return out;
}

bool Machine::hasAddress(const GidValue& address) const {
  if (!addresses) return false;
  for (const auto& entry : *addresses) {
    if (entry.address == address) return true;
  }
  return false;
}

}  // namespace nccl_roce::gid

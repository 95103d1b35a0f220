#include "gid/render.h"

#include <algorithm>
#include <map>

#include "gid/address_range.h"

namespace nccl_roce::gid {

namespace {

std::string portList(const std::vector<const PortDecision*>& ports, const char* prefix) {
  std::string out = prefix;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (i > 0) out += ',';
    out += ports[i]->device + ":" + std::to_string(ports[i]->port);
  }
  return out;
}

std::string commonPrefix(const std::vector<const PortDecision*>& ports) {
  std::string prefix = ports.front()->device;
  for (const auto* p : ports) {
    size_t n = 0;
    while (n < prefix.size() && n < p->device.size() && prefix[n] == p->device[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

// Entries of `port`'s table that NCCL's per-device choice (lowest RoCE v2 index of the family within the
// range) could take before ours: typically another pod's address in the same subnet.
std::vector<const GidEntry*> entriesNcclMayPreferTo(const Machine& machine, const PortDecision& port,
                                                    const AddressRange& range) {
  std::vector<const GidEntry*> out;
  for (const auto& device : machine.devices) {
    if (device.name != port.device) continue;
    for (const auto& info : device.ports) {
      if (info.number != port.port) continue;
      for (const auto& entry : info.gids) {
        if (entry.index >= *port.gidIndex) break;
        if (entry.value.family() != port.gid->family() || entry.value.isLinkLocal()) continue;
        if (entry.type && *entry.type != GidType::kRoceV2) continue;
        if (range.contains(entry.value)) out.push_back(&entry);
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& resolvedVariableNames() {
  static const std::vector<std::string> names{
      "NCCL_IB_HCA",         "NCCL_IB_GID_INDEX",      "NCCL_IB_ADDR_FAMILY",    "NCCL_IB_ADDR_RANGE",
      "NCCL_IB_ROCE_VERSION_NUM", "NVSHMEM_HCA_LIST",  "NVSHMEM_HCA_PREFIX",     "NVSHMEM_IB_GID_INDEX",
      "NVSHMEM_IB_ADDR_FAMILY", "NVSHMEM_IB_ADDR_RANGE", "UCX_NET_DEVICES",      "UCX_IB_GID_INDEX",
      "UCX_IB_ROCE_SUBNETS"};
  return names;
}

std::vector<EnvSetting> renderSettings(const Selection& selection, const Machine& machine, const Environment& user,
                                       std::vector<std::string>& warnings) {
  std::map<std::string, EnvSetting> resolved;
  auto set = [&](const std::string& name, const std::string& value, const std::string& note) {
    resolved[name] = EnvSetting{name, value, false, note};
  };

  std::vector<const PortDecision*> ports = selection.selected();
  if (!ports.empty()) {
    set("NCCL_IB_HCA", portList(ports, "="), "exact-match list of the selected device ports");
    set("NVSHMEM_HCA_LIST", portList(ports, ""), "the selected device ports");
    set("UCX_NET_DEVICES", portList(ports, ""), "the selected device ports");
    bool allMlx5 = std::all_of(ports.begin(), ports.end(),
                               [](const PortDecision* p) { return p->device.find("mlx5") != std::string::npos; });
    std::string prefix = commonPrefix(ports);
    if (!allMlx5 && !prefix.empty()) {
      set("NVSHMEM_HCA_PREFIX", prefix, "NVSHMEM skips devices whose name lacks its prefix (default mlx5)");
    }
  }

  if (selection.fabric == LinkLayer::kEthernet && selection.family) {
    bool ipv6 = *selection.family == AddressFamily::kIpv6;
    std::vector<int> indices;
    std::vector<GidValue> addresses;
    for (const auto* p : ports) {
      indices.push_back(*p->gidIndex);
      addresses.push_back(*p->gid);
    }
    bool uniform = std::all_of(indices.begin(), indices.end(), [&](int i) { return i == indices.front(); });
    if (ipv6) {
      set("NCCL_IB_ADDR_FAMILY", "AF_INET6", "the selected GIDs are IPv6");
      set("NVSHMEM_IB_ADDR_FAMILY", "AF_INET6", "the selected GIDs are IPv6");
    }
    if (uniform) {
      std::string index = std::to_string(indices.front());
      set("NCCL_IB_GID_INDEX", index, "every selected RoCE port resolved GID index " + index);
      set("NVSHMEM_IB_GID_INDEX", index, "every selected RoCE port resolved GID index " + index);
      set("UCX_IB_GID_INDEX", index, "every selected RoCE port resolved GID index " + index);
    } else {
      AddressRange range = AddressRange::covering(addresses);
      std::string text = range.toString();
      set("NCCL_IB_ADDR_RANGE", text, "smallest range holding every selected GID");
      set("NVSHMEM_IB_ADDR_RANGE", text, "smallest range holding every selected GID");
      set("NCCL_IB_ROCE_VERSION_NUM", "2", "NCCL's per-device choice must take RoCE v2 GIDs");
      if (!ipv6) set("UCX_IB_ROCE_SUBNETS", text, "UCX takes the first RoCE v2 GID in this subnet per device");
      warnings.push_back("selected RoCE ports use different GID indices; no single NCCL_IB_GID_INDEX fits, so "
                         "NCCL's per-device GID choice is steered with NCCL_IB_ADDR_RANGE=" + text +
                         (ipv6 ? " and NCCL_IB_ADDR_FAMILY=AF_INET6" : ""));
      for (const auto* p : ports) {
        auto earlier = entriesNcclMayPreferTo(machine, *p, range);
        if (earlier.empty()) continue;
        warnings.push_back(p->device + ":" + std::to_string(p->port) + ": NCCL's per-device choice may take GID " +
                           std::to_string(earlier.front()->index) + " (" + earlier.front()->value.toAddressString() +
                           ", not this pod's) before GID " + std::to_string(*p->gidIndex));
      }
    }
  }

  std::vector<EnvSetting> out;
  for (const auto& name : resolvedVariableNames()) {
    std::optional<std::string> userValue = user.get(name);
    auto it = resolved.find(name);
    if (userValue) {
      std::string note = it != resolved.end() ? "set by the user; resolved value would be " + it->second.value
                                              : "set by the user; the resolution would leave it unset";
      out.push_back(EnvSetting{name, *userValue, true, note});
    } else if (it != resolved.end()) {
      out.push_back(it->second);
    }
  }
  return out;
}

}  // namespace nccl_roce::gid

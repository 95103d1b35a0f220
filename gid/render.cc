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
        // NCCL's own choice skips IPv6 link-local entries (validGid), not 169.254 ones.
        if (entry.value.family() != port.gid->family() || entry.value.isIpv6LinkLocal()) continue;
        if (entry.type && *entry.type != GidType::kRoceV2) continue;
        if (range.contains(entry.value)) out.push_back(&entry);
      }
    }
  }
  return out;
}

using Settings = std::map<std::string, EnvSetting>;

void set(Settings& settings, const std::string& name, const std::string& value, const std::string& note) {
  settings[name] = EnvSetting{name, value, false, note};
}

void renderDeviceLists(const std::vector<const PortDecision*>& ports, Settings& out,
                       std::vector<std::string>& warnings) {
  set(out, "NCCL_IB_HCA", portList(ports, "="), "exact-match list of the selected device ports");
  set(out, "NVSHMEM_HCA_LIST", portList(ports, ""), "the selected device ports");
  set(out, "UCX_NET_DEVICES", portList(ports, ""), "the selected device ports");
  bool allMlx5 = std::all_of(ports.begin(), ports.end(),
                             [](const PortDecision* p) { return p->device.find("mlx5") != std::string::npos; });
  std::string prefix = commonPrefix(ports);
  if (!allMlx5 && !prefix.empty()) {
    set(out, "NVSHMEM_HCA_PREFIX", prefix, "NVSHMEM skips devices whose name lacks its prefix (default mlx5)");
  } else if (!allMlx5) {
    warnings.push_back(
        "the selected devices' names share no prefix: NVSHMEM (NVSHMEM_HCA_PREFIX, default mlx5) "
        "skips those whose name does not contain 'mlx5'");
  }
}

// Indices differ: steer NCCL's (and NVSHMEM's, UCX's) per-device choice to the selected GIDs' range.
void renderAddressRange(const std::vector<const PortDecision*>& ports, bool ipv6, const Machine& machine, Settings& out,
                        std::vector<std::string>& warnings) {
  std::vector<GidValue> addresses;
  addresses.reserve(ports.size());
  for (const auto* p : ports) addresses.push_back(*p->gid);
  AddressRange range = AddressRange::covering(addresses);
  std::string text = range.toString();
  set(out, "NCCL_IB_ADDR_RANGE", text, "smallest range holding every selected GID");
  set(out, "NVSHMEM_IB_ADDR_RANGE", text, "smallest range holding every selected GID");
  set(out, "NCCL_IB_ROCE_VERSION_NUM", "2", "NCCL's per-device choice must take RoCE v2 GIDs");
  if (!ipv6) set(out, "UCX_IB_ROCE_SUBNETS", text, "UCX takes the first RoCE v2 GID in this subnet per device");
  warnings.push_back(
      "selected RoCE ports use different GID indices; no single NCCL_IB_GID_INDEX fits, so "
      "NCCL's per-device GID choice is steered with NCCL_IB_ADDR_RANGE=" +
      text + (ipv6 ? " and NCCL_IB_ADDR_FAMILY=AF_INET6" : ""));
  for (const auto* p : ports) {
    auto earlier = entriesNcclMayPreferTo(machine, *p, range);
    if (earlier.empty()) continue;
    warnings.push_back(p->device + ":" + std::to_string(p->port) + ": NCCL's per-device choice may take GID " +
                       std::to_string(earlier.front()->index) + " (" + earlier.front()->value.toAddressString() +
                       ", not this pod's) before GID " + std::to_string(*p->gidIndex));
  }
}

void renderGidChoice(const std::vector<const PortDecision*>& ports, bool ipv6, const Machine& machine, Settings& out,
                     std::vector<std::string>& warnings) {
  if (ipv6) {
    set(out, "NCCL_IB_ADDR_FAMILY", "AF_INET6", "the selected GIDs are IPv6");
    set(out, "NVSHMEM_IB_ADDR_FAMILY", "AF_INET6", "the selected GIDs are IPv6");
  }
  int first = *ports.front()->gidIndex;
  bool uniform = std::all_of(ports.begin(), ports.end(), [&](const PortDecision* p) { return *p->gidIndex == first; });
  if (!uniform) {
    renderAddressRange(ports, ipv6, machine, out, warnings);
    return;
  }
  std::string index = std::to_string(first);
  for (const char* name : {"NCCL_IB_GID_INDEX", "NVSHMEM_IB_GID_INDEX", "UCX_IB_GID_INDEX"}) {
    set(out, name, index, "every selected RoCE port resolved GID index " + index);
  }
}

// UCX refuses UCX_IB_ROCE_SUBNETS together with UCX_IB_GID_INDEX: a user-set one means we leave out the other.
void dropUcxConflicts(const Environment& user, Settings& resolved, std::vector<std::string>& warnings) {
  for (const auto& [userSet, ours] : {std::pair<const char*, const char*>{"UCX_IB_GID_INDEX", "UCX_IB_ROCE_SUBNETS"},
                                      std::pair<const char*, const char*>{"UCX_IB_ROCE_SUBNETS", "UCX_IB_GID_INDEX"}}) {
    auto it = resolved.find(ours);
    if (it == resolved.end() || !user.get(userSet)) continue;
    warnings.push_back(std::string(ours) + "=" + it->second.value + " not set: UCX refuses it together with " +
                       userSet + ", which the user set");
    resolved.erase(it);
  }
}

// Every variable in output order: the user's value where set (kept, with what we would have set), else ours.
std::vector<EnvSetting> withUserValues(const Settings& resolved, const Environment& user) {
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

}  // namespace

const std::vector<std::string>& resolvedVariableNames() {
  static const std::vector<std::string> names{
      "NCCL_IB_HCA",           "NCCL_IB_GID_INDEX",        "NCCL_IB_ADDR_FAMILY",
      "NCCL_IB_ADDR_RANGE",    "NCCL_IB_ROCE_VERSION_NUM", "NVSHMEM_HCA_LIST",
      "NVSHMEM_HCA_PREFIX",    "NVSHMEM_IB_GID_INDEX",     "NVSHMEM_IB_ADDR_FAMILY",
      "NVSHMEM_IB_ADDR_RANGE", "UCX_NET_DEVICES",          "UCX_IB_GID_INDEX",
      "UCX_IB_ROCE_SUBNETS"};
  return names;
}

std::vector<EnvSetting> renderSettings(const Selection& selection, const Machine& machine, const Environment& user,
                                       std::vector<std::string>& warnings) {
  Settings resolved;
  std::vector<const PortDecision*> ports = selection.selected();
  if (!ports.empty()) renderDeviceLists(ports, resolved, warnings);
  if (selection.fabric == LinkLayer::kEthernet && selection.family) {
    renderGidChoice(ports, *selection.family == AddressFamily::kIpv6, machine, resolved, warnings);
  }
  dropUcxConflicts(user, resolved, warnings);
  return withUserValues(resolved, user);
}

}  // namespace nccl_roce::gid

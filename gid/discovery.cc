#include "gid/discovery.h"

#include <algorithm>
#include <map>

#include "common/strings.h"
#include "gid/sysfs_formats.h"

namespace nccl_roce::gid {

namespace {

constexpr int kMaxPortNumber = 255;  // port numbers are u8 in the verbs ABI

std::string describe(const Status& status) {
  switch (status.code()) {
    case StatusCode::kNotFound: return "missing";
    case StatusCode::kInvalidArgument:
      return status.message().size() >= 5 && status.message().compare(status.message().size() - 5, 5, "empty") == 0
                 ? "empty"
                 : "unreadable (EINVAL: entry not populated or not visible here)";
    case StatusCode::kPermissionDenied: return "permission denied";
    case StatusCode::kTooLarge: return "larger than a sysfs attribute can be";
    default: return "unreadable (" + status.message() + ")";
  }
}

const VerbsPort* findVerbsPort(const std::vector<VerbsDevice>* verbs, const std::string& device, int port) {
  if (verbs == nullptr) return nullptr;
  for (const auto& d : *verbs) {
    if (d.name != device) continue;
    for (const auto& p : d.ports) {
      if (p.number == port) return &p;
    }
  }
  return nullptr;
}

class Discoverer {
 public:
  Discoverer(const DiscoveryInputs& inputs, Machine& machine) : in_(inputs), sysfs_(*inputs.sysfs), machine_(machine) {}

  void run() {
    machine_.addresses = in_.addresses;
    readNetdevs();
    auto names = sysfs_.entries("class/infiniband");
    if (!names.isOk()) {
      if (names.status().code() == StatusCode::kNotFound) {
        machine_.warnings.push_back("no RDMA devices: " + sysfs_.path("class/infiniband") + " does not exist");
      } else {
        machine_.warnings.push_back("cannot list RDMA devices: " + names.status().toString());
      }
      return;
    }
    std::sort(names->begin(), names->end(), [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
    for (const auto& name : *names) machine_.devices.push_back(readDevice(name));
    reportVerbsOnlyDevices();
  }

 private:
  void readNetdevs() {
    auto netdevs = sysfs_.entries("class/net");
    if (!netdevs.isOk()) {
      machine_.warnings.push_back("cannot list this namespace's netdevs (" + netdevs.status().toString() +
                                  "): no RoCE GID can be tied to this pod");
      return;
    }
    machine_.visibleNetdevs.insert(netdevs->begin(), netdevs->end());
  }

  DeviceInfo readDevice(const std::string& name) {
    DeviceInfo device;
    device.name = name;
    std::string base = "class/infiniband/" + name;
    if (!isListableDeviceName(name)) {
      device.problems.push_back("name has characters NCCL_IB_HCA cannot carry");
      return device;
    }
    if (in_.verbs != nullptr) {
      for (const auto& v : *in_.verbs) {
        if (v.name == name && !v.opened) device.verbsOpenError = v.openError;
      }
    }
    auto link = sysfs_.linkTarget(base + "/device");
    if (link.isOk()) {
      std::string target = *link;
      std::string leaf = target.substr(target.find_last_of('/') + 1);
      if (isPciAddress(leaf)) device.pciAddress = leaf;
      device.role = sysfs_.exists(base + "/device/physfn") ? FunctionRole::kVirtualFunction
                                                           : FunctionRole::kPhysicalFunction;
      auto numa = sysfs_.attribute(base + "/device/numa_node");
      if (numa.isOk()) {
        auto node = parseUnsigned(*numa);  // "-1" (no NUMA information) does not parse: stays unknown
        if (node && *node < 4096) device.numaNode = static_cast<int>(*node);
      }
    }
    auto ports = sysfs_.entries(base + "/ports");
    if (!ports.isOk()) {
      device.problems.push_back("ports: " + describe(ports.status()));
      return device;
    }
    std::vector<int> numbers;
    for (const auto& entry : *ports) {
      auto number = parseUnsigned(entry);
      if (!number || *number == 0 || *number > kMaxPortNumber) {
        device.problems.push_back("ignored port entry '" + entry + "'");
        continue;
      }
      numbers.push_back(static_cast<int>(*number));
    }
    std::sort(numbers.begin(), numbers.end());
    for (int number : numbers) device.ports.push_back(readPort(device, number));
    return device;
  }

  PortInfo readPort(const DeviceInfo& device, int number) {
    PortInfo port;
    port.number = number;
    std::string base = "class/infiniband/" + device.name + "/ports/" + std::to_string(number);
    SysfsReader::Directory attributes = sysfs_.directory(base);
    readState(attributes, "state", port.state, port);
    readState(attributes, "phys_state", port.physState, port);
    auto layer = attributes.attribute("link_layer");
    if (layer.isOk()) {
      port.linkLayer = parseLinkLayer(*layer);
    } else {
      port.problems.push_back("link_layer " + describe(layer.status()));
    }
    auto rate = attributes.attribute("rate");
    if (rate.isOk()) {
      port.rateText = *rate;
      port.rateGbps = parseRateGbps(*rate);
      if (!port.rateGbps) port.problems.push_back("rate '" + *rate + "' not understood");
    } else {
      port.problems.push_back("rate " + describe(rate.status()));
    }
    bool usable = port.state && port.state->code == kPortActive &&
                  (!port.physState || port.physState->code == kPhysLinkUp);
    if (usable && port.linkLayer == LinkLayer::kEthernet) {
      readGidTable(device.name, base, port);
    }
    return port;
  }

  void readState(const SysfsReader::Directory& attributes, const char* what, std::optional<NumberedState>& out,
                 PortInfo& port) {
    auto text = attributes.attribute(what);
    if (!text.isOk()) {
      port.problems.push_back(std::string(what) + " " + describe(text.status()));
      return;
    }
    out = parseNumberedState(*text);
    if (!out) port.problems.push_back(std::string(what) + " '" + *text + "' not understood");
  }

  void readGidTable(const std::string& device, const std::string& base, PortInfo& port) {
    auto names = sysfs_.entries(base + "/gids");
    if (!names.isOk()) {
      port.problems.push_back("gids " + describe(names.status()));
      return;
    }
    port.gidsScanned = true;
    std::vector<int> indices;
    for (const auto& name : *names) {
      auto index = parseUnsigned(name);
      if (index && *index <= 65535) indices.push_back(static_cast<int>(*index));
    }
    std::sort(indices.begin(), indices.end());
    SysfsReader::Directory gids = sysfs_.directory(base + "/gids");
    SysfsReader::Directory types = sysfs_.directory(base + "/gid_attrs/types");
    SysfsReader::Directory ndevs = sysfs_.directory(base + "/gid_attrs/ndevs");
    const VerbsPort* verbs = findVerbsPort(in_.verbs, device, port.number);
    FamilyNeeds needs = familyNeeds();
    std::map<int, GidEntry> table;
    for (int index : indices) {
      // Lowest index wins within a family, so once this namespace's families are covered the rest of the table
      // cannot change the answer (unless verbs must be compared entry by entry).
      if (verbs == nullptr && needs.satisfied()) break;
      auto text = gids.attribute(std::to_string(index));
      std::optional<GidValue> value = text.isOk() ? GidValue::parseKernel(*text) : std::nullopt;
      if (!value || value->isZero()) {
        ++port.emptyGidEntries;
        continue;
      }
      GidEntry entry;
      entry.index = index;
      entry.value = *value;
      if (verbs == nullptr) {
        examine(types, ndevs, entry);
        needs.record(machine_, entry);
      }
      table.emplace(index, entry);
    }
    if (verbs != nullptr) {
      mergeVerbs(device, port, *verbs, table);
      for (auto& [index, entry] : table) examine(types, ndevs, entry);
    }
    for (auto& [index, entry] : table) port.gids.push_back(std::move(entry));
  }

  // Which address families this namespace can still find a GID for; only known when addresses are.
  struct FamilyNeeds {
    bool known = false;
    bool ipv4 = false;
    bool ipv6 = false;
    bool satisfied() const { return known && !ipv4 && !ipv6; }
    void record(const Machine& machine, const GidEntry& entry) {
      if (!known || !entry.notExamined.empty() || !entry.netdev || !entry.type || *entry.type != GidType::kRoceV2 ||
          machine.visibleNetdevs.count(*entry.netdev) == 0) {
        return;
      }
      auto own = machine.addressesOf(*entry.netdev);
      if (std::find(own.begin(), own.end(), entry.value) == own.end()) return;
      (entry.value.isIpv4Mapped() ? ipv4 : ipv6) = false;
    }
  };

  FamilyNeeds familyNeeds() const {
    FamilyNeeds needs;
    if (!machine_.addresses) return needs;
    needs.known = true;
    for (const auto& a : *machine_.addresses) {
      if (a.address.isLinkLocal() || machine_.visibleNetdevs.count(a.ifname) == 0) continue;
      (a.address.isIpv4Mapped() ? needs.ipv4 : needs.ipv6) = true;
    }
    return needs;
  }

  // Verbs is the authority for GID values (NCCL queries them through verbs); sysfs for type and netdev.
  void mergeVerbs(const std::string& device, PortInfo& port, const VerbsPort& verbs, std::map<int, GidEntry>& table) {
    std::map<int, const VerbsGid*> byIndex;
    for (const auto& gid : verbs.gids) byIndex[gid.index] = &gid;
    std::string where = device + " port " + std::to_string(port.number) + " GID ";
    for (auto it = table.begin(); it != table.end();) {
      auto v = byIndex.find(it->first);
      if (v == byIndex.end()) {
        machine_.warnings.push_back(where + std::to_string(it->first) + ": sysfs reads " +
                                    it->second.value.toKernelString() + ", verbs reads it empty; using verbs");
        ++port.emptyGidEntries;
        it = table.erase(it);
        continue;
      }
      if (v->second->value != it->second.value) {
        machine_.warnings.push_back(where + std::to_string(it->first) + ": sysfs reads " +
                                    it->second.value.toKernelString() + ", verbs reads " +
                                    v->second->value.toKernelString() + "; using verbs");
        it->second.value = v->second->value;
        it->second.valueFromVerbs = true;
      }
      ++it;
    }
    for (const auto& [index, gid] : byIndex) {
      if (table.count(index) != 0) continue;
      machine_.warnings.push_back(where + std::to_string(index) + ": sysfs reads it empty, verbs reads " +
                                  gid->value.toKernelString() + "; using verbs");
      GidEntry entry;
      entry.index = index;
      entry.value = gid->value;
      entry.type = gid->type;
      entry.valueFromVerbs = true;
      table.emplace(index, entry);
    }
  }

  // Reads ndevs and types only where the entry could still qualify (the benchmark's "read no file you do
  // not need"): link-local entries and addresses that are not configured here are settled by value alone.
  void examine(const SysfsReader::Directory& types, const SysfsReader::Directory& ndevs, GidEntry& entry) {
    if (entry.value.isLinkLocal()) {
      entry.notExamined = "link-local address";
      return;
    }
    if (machine_.addresses && !machine_.hasAddress(entry.value)) {
      entry.notExamined = "address " + entry.value.toAddressString() + " is not configured in this network namespace";
      return;
    }
    std::string index = std::to_string(entry.index);
    auto netdev = ndevs.attribute(index);
    if (netdev.isOk()) {
      entry.netdev = *netdev;
    } else {
      entry.netdevProblem = "gid_attrs/ndevs/" + index + " " + describe(netdev.status());
    }
    if (!entry.netdev || machine_.visibleNetdevs.count(*entry.netdev) == 0) return;
    auto type = types.attribute(index);
    if (type.isOk()) {
      std::optional<GidType> parsed = parseGidType(*type);
      if (parsed) {
        entry.type = parsed;
      } else {
        entry.type = GidType::kOther;
        entry.typeProblem = "gid_attrs/types/" + index + " '" + *type + "' not understood";
      }
    } else if (!entry.type) {  // keep a type verbs already gave
      entry.typeProblem = "gid_attrs/types/" + index + " " + describe(type.status());
    }
  }

  void reportVerbsOnlyDevices() {
    if (in_.verbs == nullptr) return;
    for (const auto& v : *in_.verbs) {
      bool known = std::any_of(machine_.devices.begin(), machine_.devices.end(),
                               [&](const DeviceInfo& d) { return d.name == v.name; });
      if (!known) machine_.warnings.push_back("verbs lists " + v.name + ", which sysfs does not show");
    }
  }

  const DiscoveryInputs& in_;
  const SysfsReader& sysfs_;
  Machine& machine_;
};

}  // namespace

Machine discoverMachine(const DiscoveryInputs& inputs) {
  Machine machine;
  if (inputs.sysfs == nullptr) {
    machine.warnings.push_back("no sysfs reader given");
    return machine;
  }
  Discoverer(inputs, machine).run();
  return machine;
}

}  // namespace nccl_roce::gid

#include "gid/discovery.h"

#include <algorithm>
#include <map>

#include "common/strings.h"
#include "gid/qualification.h"
#include "gid/sysfs_formats.h"

namespace nccl_roce::gid {

namespace {

constexpr int kMaxPortNumber = 255;  // port numbers are u8 in the verbs ABI

std::string describe(const Status& status) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      return "missing";
    case StatusCode::kInvalidArgument:
      return status.message().size() >= 5 && status.message().compare(status.message().size() - 5, 5, "empty") == 0
                 ? "empty"
                 : "unreadable (EINVAL: entry not populated or not visible here)";
    case StatusCode::kPermissionDenied:
      return "permission denied";
    case StatusCode::kTooLarge:
      return "larger than a sysfs attribute can be";
    default:
      return "unreadable (" + status.message() + ")";
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

// The GID table of one port as sysfs lists it and, when verbs can read it, as verbs returns it.
struct TableViews {
  std::vector<int> inSysfs;  // ascending
  bool verbs = false;        // false: sysfs alone
  std::map<int, const VerbsGid*> inVerbs;

  std::vector<int> indices() const {  // every index either view holds, ascending
    std::vector<int> all = inSysfs;
    for (const auto& [index, gid] : inVerbs) all.push_back(index);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }
};

// The kinds of address this namespace can still find a GID for; only known when addresses are. A routable
// IPv4 GID settles IPv4 (it wins over a 169.254 one whatever its index); a 169.254 one settles only itself.
struct AddressNeeds {
  bool known = false;
  bool routableIpv4 = false;
  bool linkLocalIpv4 = false;
  bool ipv6 = false;

  bool satisfied() const { return known && !routableIpv4 && !linkLocalIpv4 && !ipv6; }
  void record(const Machine& machine, const GidEntry& entry) {
    if (!known || gidRejection(machine, entry)) return;
    if (!entry.value.isIpv4Mapped()) {
      ipv6 = false;
    } else if (entry.value.isIpv4LinkLocal()) {
      linkLocalIpv4 = false;
    } else {
      routableIpv4 = linkLocalIpv4 = false;
    }
  }
};

AddressNeeds addressNeeds(const Machine& machine) {
  AddressNeeds needs;
  if (!machine.addresses) return needs;
  needs.known = true;
  for (const auto& a : *machine.addresses) {
    if (a.address.isIpv6LinkLocal() || machine.visibleNetdevs.count(a.ifname) == 0) continue;
    if (!a.address.isIpv4Mapped()) {
      needs.ipv6 = true;
    } else if (a.address.isIpv4LinkLocal()) {
      needs.linkLocalIpv4 = true;
    } else {
      needs.routableIpv4 = true;
    }
  }
  return needs;
}

class Discoverer {
 public:
  Discoverer(const DiscoveryInputs& inputs, Machine& machine) : in_(inputs), sysfs_(*inputs.sysfs), machine_(machine) {}

  void run() {
    machine_.addresses = in_.addresses;
    readNetdevs();
    auto names = sysfs_.entries("class/infiniband");
    if (!names.isOk()) {
      machine_.noDevicesReason = names.status().code() == StatusCode::kNotFound
                                     ? "no RDMA devices: " + sysfs_.path("class/infiniband") + " does not exist"
                                     : "cannot list RDMA devices: " + names.status().toString();
      machine_.warnings.push_back(machine_.noDevicesReason);
      return;
    }
    std::sort(names->begin(), names->end(),
              [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
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
      // Only a PCI function is a PF or a VF; soft-RoCE, sub-functions and auxiliary devices stay unknown.
      if (isPciAddress(leaf)) {
        device.pciAddress = leaf;
        device.role =
            sysfs_.exists(base + "/device/physfn") ? FunctionRole::kVirtualFunction : FunctionRole::kPhysicalFunction;
      }
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
    readState(attributes, "state", parsePortState, port.state, port);
    readState(attributes, "phys_state", parsePhysState, port.physState, port);
    crossCheckState(device.name, port);
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
    bool usable = port.state && port.state->code == PortState::kActive &&
                  (!port.physState || port.physState->code == PhysState::kLinkUp);
    if (usable && port.linkLayer == LinkLayer::kEthernet) {
      readGidTable(device.name, base, port);
      readForcedEntries(device.name, base, port);
    }
    return port;
  }

  // What each user-forced index holds on this port, read in full: value, type and netdev.
  void readForcedEntries(const std::string& device, const std::string& base, PortInfo& port) {
    const VerbsPort* verbs = findVerbsPort(in_.verbs, device, port.number);
    for (int index : in_.forcedIndices) {
      ForcedGid forced;
      forced.entry.index = index;
      std::string leaf = std::to_string(index);
      auto text = sysfs_.attribute(base + "/gids/" + leaf);
      if (text.isOk()) {
        auto value = GidValue::parseKernel(*text);
        if (value) {
          forced.entry.value = *value;
        } else {
          forced.valueProblem = "gids/" + leaf + " '" + *text + "' not understood";
        }
      } else {
        forced.valueProblem = "gids/" + leaf + " " + describe(text.status());
      }
      if (verbs != nullptr) {
        forced.entry.value = GidValue();
        for (const auto& gid : verbs->gids) {
          if (gid.index == index) forced.entry.value = gid.value;
        }
        forced.entry.valueFromVerbs = true;
        if (index < verbs->gidTableLength) forced.valueProblem.clear();
      }
      if (forced.valueProblem.empty() && !forced.entry.value.isZero()) {
        auto netdev = sysfs_.attribute(base + "/gid_attrs/ndevs/" + leaf);
        if (netdev.isOk()) forced.entry.netdev = *netdev;
        auto type = sysfs_.attribute(base + "/gid_attrs/types/" + leaf);
        if (type.isOk()) forced.entry.type = parseGidType(*type).value_or(GidType::kOther);
      }
      port.forced.push_back(std::move(forced));
    }
  }

  // NCCL decides from verbs whether a port is active: when the two views disagree, say so and go by verbs.
  void crossCheckState(const std::string& device, PortInfo& port) {
    const VerbsPort* verbs = findVerbsPort(in_.verbs, device, port.number);
    if (verbs == nullptr || !port.state || verbs->state == port.state->number()) return;
    auto verbsState = static_cast<PortState>(verbs->state);
    PortStateReading fromVerbs{verbsState, portStateName(verbsState)};
    machine_.warnings.push_back(device + " port " + std::to_string(port.number) + ": sysfs state is " +
                                std::to_string(port.state->number()) + ": " + port.state->text + ", verbs state is " +
                                std::to_string(fromVerbs.number()) + ": " + fromVerbs.text + "; using verbs");
    port.state = fromVerbs;
  }

  template <typename State>
  void readState(const SysfsReader::Directory& attributes, const char* what,
                 std::optional<NumberedState<State>> (*parse)(std::string_view),
                 std::optional<NumberedState<State>>& out, PortInfo& port) {
    auto text = attributes.attribute(what);
    if (!text.isOk()) {
      port.problems.push_back(std::string(what) + " " + describe(text.status()));
      return;
    }
    out = parse(*text);
    if (!out) port.problems.push_back(std::string(what) + " '" + *text + "' not understood");
  }

  // The GID table of one port as both views list it; nullopt (with the problem recorded) when sysfs cannot.
  std::optional<TableViews> tableViews(const std::string& device, const std::string& base, PortInfo& port) {
    auto names = sysfs_.entries(base + "/gids");
    if (!names.isOk()) {
      port.problems.push_back("gids " + describe(names.status()));
      return std::nullopt;
    }
    port.gidsScanned = true;
    TableViews views;
    for (const auto& name : *names) {
      auto index = parseUnsigned(name);
      if (index && *index <= 65535) views.inSysfs.push_back(static_cast<int>(*index));
    }
    std::sort(views.inSysfs.begin(), views.inSysfs.end());
    const VerbsPort* verbs = findVerbsPort(in_.verbs, device, port.number);
    if (verbs != nullptr && !verbs->gidError.empty()) {
      machine_.warnings.push_back(device + " port " + std::to_string(port.number) + ": " + verbs->gidError +
                                  "; using sysfs's GID values");
      verbs = nullptr;
    }
    views.verbs = verbs != nullptr;
    if (verbs != nullptr) {
      for (const auto& gid : verbs->gids) views.inVerbs[gid.index] = &gid;
    }
    return views;
  }

  // Reads the table in index order. The lowest index wins within a kind of address, so once every kind this
  // namespace has addresses of has its qualifying entry the rest of the table cannot change the answer, and is
  // not read. With verbs, both views are compared entry by entry up to that point (verbs wins): exactly the
  // entries that could have been chosen instead.
  void readGidTable(const std::string& device, const std::string& base, PortInfo& port) {
    std::optional<TableViews> views = tableViews(device, base, port);
    if (!views) return;
    SysfsReader::Directory gids = sysfs_.directory(base + "/gids");
    SysfsReader::Directory types = sysfs_.directory(base + "/gid_attrs/types");
    SysfsReader::Directory ndevs = sysfs_.directory(base + "/gid_attrs/ndevs");
    AddressNeeds needs = addressNeeds(machine_);
    const std::string where = device + " port " + std::to_string(port.number) + " GID ";
    for (int index : views->indices()) {
      if (needs.satisfied()) break;
      std::optional<GidValue> fromSysfs;
      if (std::binary_search(views->inSysfs.begin(), views->inSysfs.end(), index)) {
        auto text = gids.attribute(std::to_string(index));
        if (text.isOk()) fromSysfs = GidValue::parseKernel(*text);
        if (fromSysfs && fromSysfs->isZero()) fromSysfs.reset();
      }
      std::optional<GidEntry> entry =
          views->verbs ? entryFromVerbs(*views, index, fromSysfs, where) : entryFromSysfs(index, fromSysfs);
      if (!entry) {
        ++port.emptyGidEntries;
        continue;
      }
      examine(types, ndevs, *entry);
      needs.record(machine_, *entry);
      port.gids.push_back(std::move(*entry));
    }
  }

  static std::optional<GidEntry> entryFromSysfs(int index, const std::optional<GidValue>& fromSysfs) {
    if (!fromSysfs) return std::nullopt;
    GidEntry entry;
    entry.index = index;
    entry.value = *fromSysfs;
    return entry;
  }

  // Verbs's entry at `index` (nullopt: verbs reads it empty); a sysfs view that differs is reported.
  std::optional<GidEntry> entryFromVerbs(const TableViews& views, int index, const std::optional<GidValue>& fromSysfs,
                                         const std::string& where) {
    auto found = views.inVerbs.find(index);
    const VerbsGid* fromVerbs = found == views.inVerbs.end() ? nullptr : found->second;
    bool disagree =
        fromSysfs.has_value() != (fromVerbs != nullptr) || (fromSysfs && fromVerbs && *fromSysfs != fromVerbs->value);
    if (disagree) {
      machine_.warnings.push_back(
          where + std::to_string(index) + ": " +
          (fromSysfs ? "sysfs reads " + fromSysfs->toKernelString() : std::string("sysfs reads it empty")) + ", " +
          (fromVerbs ? "verbs reads " + fromVerbs->value.toKernelString() : std::string("verbs reads it empty")) +
          "; using verbs");
    }
    if (fromVerbs == nullptr) return std::nullopt;
    GidEntry entry;
    entry.index = index;
    entry.value = fromVerbs->value;
    entry.type = fromVerbs->type;
    entry.valueFromVerbs = !fromSysfs || *fromSysfs != fromVerbs->value;
    return entry;
  }

  // Reads ndevs and types only where the entry could still qualify (the benchmark's "read no file you do
  // not need"): IPv6 link-local entries and addresses that are not configured here are settled by value alone.
  void examine(const SysfsReader::Directory& types, const SysfsReader::Directory& ndevs, GidEntry& entry) {
    if (entry.value.isIpv6LinkLocal()) {
      entry.skipped = SkipReason::kIpv6LinkLocal;
      return;
    }
    if (machine_.addresses && !machine_.hasAddress(entry.value)) {
      entry.skipped = SkipReason::kAddressNotHere;
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

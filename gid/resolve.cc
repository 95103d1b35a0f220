#include "gid/resolve.h"

#include <algorithm>
#include <exception>

#include "common/settings.h"
#include "common/strings.h"
#include "gid/discovery.h"
#include "gid/forced_index.h"
#include "gid/reasons.h"

namespace nccl_roce::gid {

namespace {

constexpr const char* kDefaultSysfsRoot = "/sys";

std::string noneSelectedError(const Machine& machine, const Selection& selection) {
  if (machine.devices.empty()) {
    return machine.noDevicesReason.empty() ? std::string("no RDMA devices found") : machine.noDevicesReason;
  }
  return "no usable RDMA port: none of " + std::to_string(selection.ports.size()) +
         " device port(s) qualified (see each port's reason)";
}

// The address and verbs sources, read once into discovery's inputs; a source that fails is noted on the
// resolution and left out (GIDs matched by netdev alone; sysfs alone).
void readAddressesAndVerbs(const ResolverSources& sources, DiscoveryInputs& inputs,
                           std::vector<VerbsDevice>& verbsDevices, Resolution& resolution) {
  if (sources.addresses != nullptr) {
    auto addresses = sources.addresses->list();
    if (addresses.isOk()) {
      inputs.addresses = std::move(*addresses);
    } else {
      resolution.warnings.push_back("addresses unknown (" + addresses.status().toString() +
                                    "): GIDs matched by netdev alone");
      resolution.addressSource = "unavailable";
    }
  }
  if (sources.verbs != nullptr) {
    auto queried = queryVerbs(*sources.verbs);
    if (queried.isOk()) {
      verbsDevices = std::move(*queried);
      inputs.verbs = &verbsDevices;
    } else {
      resolution.verbsSource = "not used (" + queried.status().message() + ")";
    }
  }
}

}  // namespace

std::optional<std::string> Resolution::resolvedValue(const std::string& name) const {
  for (const auto& setting : env) {
    if (setting.name == name && !setting.keptFromUser) return setting.value;
  }
  return std::nullopt;
}

std::vector<std::string> Resolution::summaryLines(const std::string& settingPrefix) const {
  std::vector<std::string> lines;
  if (!anySelected()) {
    lines.push_back(error);
    return lines;
  }
  for (const auto& port : ports) {
    if (port.selected) lines.push_back(port.device + ":" + std::to_string(port.port) + " " + reasonText(port));
  }
  for (const auto& setting : env) {
    if (!startsWith(setting.name, settingPrefix)) continue;
    lines.push_back(setting.name + "=" + setting.value + (setting.keptFromUser ? " (kept: set by the user)" : ""));
  }
  for (const auto& warning : warnings) lines.push_back("warning: " + warning);
  return lines;
}

Resolution resolve(const ResolverSources& sources, const Environment& user) {
  Resolution resolution;
  if (sources.sysfs == nullptr) {
    resolution.error = "no sysfs reader";
    return resolution;
  }
  resolution.sysfsRoot = sources.sysfs->root();
  resolution.addressSource = sources.addresses ? sources.addressSourceName : "none (GIDs matched by netdev)";
  resolution.verbsSource = sources.verbs ? sources.verbsSourceName : "not used";

  DiscoveryInputs inputs;
  inputs.sysfs = sources.sysfs;
  std::vector<VerbsDevice> verbsDevices;
  readAddressesAndVerbs(sources, inputs, verbsDevices, resolution);
  std::vector<ForcedIndex> forced = forcedIndicesOf(user);
  for (const auto& f : forced) {
    if (f.index >= 0 &&
        std::find(inputs.forcedIndices.begin(), inputs.forcedIndices.end(), f.index) == inputs.forcedIndices.end()) {
      inputs.forcedIndices.push_back(f.index);
    }
  }
  SelectionOptions options;
  if (auto hca = user.get("NCCL_IB_HCA")) {
    options.userHcaList = NcclHcaList::parse(*hca);
    options.userHcaText = *hca;
  }

  size_t readsBefore = sources.sysfs->filesRead();
  Machine machine = discoverMachine(inputs);
  resolution.filesRead = sources.sysfs->filesRead() - readsBefore;
  Selection selection = selectPorts(machine, options);

  resolution.warnings.insert(resolution.warnings.end(), machine.warnings.begin(), machine.warnings.end());
  resolution.warnings.insert(resolution.warnings.end(), selection.warnings.begin(), selection.warnings.end());
  for (auto& warning : checkForcedIndices(forced, selection, machine))
    resolution.warnings.push_back(std::move(warning));
  resolution.env = renderSettings(selection, machine, user, resolution.warnings);
  resolution.fabric = selection.fabric;
  resolution.family = selection.family;
  if (!selection.anySelected()) resolution.error = noneSelectedError(machine, selection);
  resolution.ports = std::move(selection.ports);
  resolution.machine = std::make_shared<const Machine>(std::move(machine));
  return resolution;
}

std::string sysfsRootFor(const Environment& env, std::string* note) {
  std::optional<std::string> root = env.get(settings::kSysfsRoot.name);
  if (!root || root->empty()) return kDefaultSysfsRoot;
  if (env.isPrivileged()) {
    if (note != nullptr) *note = "NCCL_ROCE_SYSFS_ROOT ignored in a privileged (setuid) process";
    return kDefaultSysfsRoot;
  }
  return *root;
}

Resolution resolveThisProcess(const Environment& env, Logger& log) {
  try {
    std::string note;
    std::string root = sysfsRootFor(env, &note);
    if (!note.empty()) NCCL_ROCE_WARN(log, kLogInit, "%s", note.c_str());
    SysfsReader sysfs(root);
    ResolverSources sources;
    sources.sysfs = &sysfs;
    KernelAddressSource kernelAddresses;
    std::string verbsWhyNot;
    // A substitute sysfs tree describes another machine: the kernel's addresses and devices would not match it.
    if (root == kDefaultSysfsRoot) {
      sources.addresses = &kernelAddresses;
      sources.addressSourceName = "getifaddrs";
      sources.verbs = loadSystemVerbs(&verbsWhyNot);
      sources.verbsSourceName = "libibverbs.so.1";
    } else {
      verbsWhyNot = "sysfs root " + root + " is not this machine's";
    }
    Resolution resolution = resolve(sources, env);
    if (sources.verbs == nullptr) resolution.verbsSource = "not used (" + verbsWhyNot + ")";
    return resolution;
  } catch (const std::exception& e) {
    Resolution failed;
    failed.error = std::string("resolution failed: ") + e.what();
    return failed;
  } catch (...) {
    Resolution failed;
    failed.error = "resolution failed";
    return failed;
  }
}

}  // namespace nccl_roce::gid

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "cli/doctor/checks.h"
#include "common/strings.h"
#include "gid/reasons.h"

namespace nccl_roce::doctor {

namespace {

std::string where(const gid::PortDecision& p) {
  return p.device + (p.port > 0 ? ":" + std::to_string(p.port) : "");
}

std::vector<const gid::PortDecision*> selectedRoce(const gid::Resolution& r) {
  std::vector<const gid::PortDecision*> out;
  for (const auto& p : r.ports) {
    if (p.selected && p.linkLayer == gid::LinkLayer::kEthernet) out.push_back(&p);
  }
  return out;
}

}  // namespace

CheckResult checkPortState(const DoctorInputs& in) {
  const char* id = "port-state";
  const char* title = "RDMA device ports";
  const gid::Resolution& r = *in.resolution;
  if (r.ports.empty()) {
    return CheckResult::fail(id, title, r.error.empty() ? "no RDMA devices" : r.error,
                             "give the pod its RDMA devices (SR-IOV VFs or the RDMA shared device plugin) and check "
                             "the NIC driver is loaded");
  }
  size_t active = 0;
  std::string down;
  for (const auto& p : r.ports) {
    if (p.isActive()) {
      ++active;
    } else {
      down += (down.empty() ? "" : ", ") + where(p) + " " + (p.state ? p.state->text : "unreadable");
    }
  }
  std::string detail = std::to_string(active) + " of " + std::to_string(r.ports.size()) + " port(s) ACTIVE";
  if (active == 0) {
    return CheckResult::fail(id, title, detail + " (" + down + ")",
                             "bring the links up (cabling, switch ports, `ip link set <netdev> up` on RoCE)");
  }
  if (!down.empty()) {
    return CheckResult::warn(id, title, detail + "; not active: " + down,
                             "ports that are down are left out; ignore if they are meant to be unused");
  }
  return CheckResult::pass(id, title, detail);
}

CheckResult checkGidQualification(const DoctorInputs& in) {
  const char* id = "gid-qualification";
  const char* title = "RoCE v2 GID per port";
  const gid::Resolution& r = *in.resolution;
  if (r.fabric == gid::LinkLayer::kInfiniBand)
    return CheckResult::skip(id, title, "InfiniBand fabric: no GID to choose");
  // Name every port that fails (the reason is the remedy's input); summarise the ones that qualify, since a
  // rail-optimised node has eight of them and the per-port choice is `nccl-roce detect`'s job.
  std::string failures, chosen;
  size_t ok = 0, rejected = 0;
  std::set<int> indices;
  for (const auto& p : r.ports) {
    if (p.linkLayer != gid::LinkLayer::kEthernet || !p.isActive()) continue;
    if (p.selected) {
      ++ok;
      if (p.gidIndex) indices.insert(*p.gidIndex);
    } else {
      ++rejected;
      failures += (failures.empty() ? "" : "; ") + where(p) + ": " + gid::reasonText(p);
    }
  }
  if (ok + rejected == 0) return CheckResult::skip(id, title, "no active Ethernet port");
  for (int i : indices) chosen += (chosen.empty() ? "" : ",") + std::to_string(i);
  std::string detail = std::to_string(ok) + " of " + std::to_string(ok + rejected) +
                       " active RoCE port(s) have a RoCE v2 GID of this pod" +
                       (chosen.empty() ? "" : " (GID index " + chosen + ")");
  if (!failures.empty()) detail += "; " + failures;
  if (ok == 0) {
    return CheckResult::fail(id, title, detail,
                             "no GID carries an address of this pod: check the pod's secondary networks (net1...) are "
                             "attached and addressed, and that the NICs' RoCE mode includes v2");
  }
  if (rejected > 0) {
    return CheckResult::warn(id, title, detail, "the ports without a qualifying GID are left out");
  }
  return CheckResult::pass(id, title, detail);
}

CheckResult checkRoceV2(const DoctorInputs& in) {
  const char* id = "roce-v2";
  const char* title = "RoCE v2 available";
  const gid::Resolution& r = *in.resolution;
  if (r.fabric == gid::LinkLayer::kInfiniBand) return CheckResult::skip(id, title, "InfiniBand fabric");
  if (!r.machine) return CheckResult::skip(id, title, "no machine view");
  std::vector<std::string> v1Only;
  size_t withV2 = 0, ethernet = 0;
  for (const auto& device : r.machine->devices) {
    for (const auto& port : device.ports) {
      if (port.linkLayer != gid::LinkLayer::kEthernet || !port.state || port.state->code != gid::PortState::kActive) {
        continue;
      }
      ++ethernet;
      bool v2 = false, v1 = false;
      for (const auto& g : port.gids) {
        v2 |= g.type == gid::GidType::kRoceV2;
        v1 |= g.type == gid::GidType::kRoceV1;
      }
      if (v2) ++withV2;
      if (v1 && !v2) v1Only.push_back(device.name + ":" + std::to_string(port.number));
    }
  }
  if (ethernet == 0) return CheckResult::skip(id, title, "no active Ethernet port");
  std::string detail =
      std::to_string(withV2) + " of " + std::to_string(ethernet) + " active Ethernet port(s) have RoCE v2 GIDs";
  if (withV2 == 0) {
    return CheckResult::fail(id, title, detail,
                             "enable RoCE v2 on the NICs (e.g. `cma_roce_mode -m 2`, or the NIC firmware's RoCE mode)");
  }
  if (!v1Only.empty()) {
    std::string list;
    for (const auto& p : v1Only) list += (list.empty() ? "" : ", ") + p;
    return CheckResult::warn(id, title, detail + "; RoCE v1 only: " + list,
                             "enable RoCE v2 on those ports or leave them out");
  }
  return CheckResult::pass(id, title, detail);
}

CheckResult checkMtu(const DoctorInputs& in) {
  const char* id = "mtu";
  const char* title = "MTU of the RoCE netdevs";
  auto roce = selectedRoce(*in.resolution);
  if (roce.empty()) return CheckResult::skip(id, title, "no selected RoCE port");
  std::string detail, small;
  size_t read = 0;
  for (const auto* p : roce) {
    if (!p->netdev) continue;
    auto text = in.sysfs->attribute("class/net/" + *p->netdev + "/mtu");
    std::optional<uint64_t> mtu;
    if (text.isOk()) mtu = parseUnsigned(*text);
    const uint64_t value = mtu.value_or(0);
    std::string shown = mtu ? std::to_string(value) : "unreadable";
    read += mtu.has_value();
    detail += (detail.empty() ? "" : ", ") + *p->netdev + " " + shown;
    // RoCE path MTU is the largest of 256..4096 that fits the netdev MTU with its ~100 bytes of headers.
    if (mtu && value < 4200) small += (small.empty() ? "" : ", ") + *p->netdev;
  }
  if (read == 0) return CheckResult::skip(id, title, "the netdevs' MTU is unreadable (" + detail + ")");
  if (!small.empty()) {
    return CheckResult::warn(id, title, detail + " (RoCE path MTU below 4096 on " + small + ")",
                             "use jumbo frames on the RoCE networks (MTU 9000 on the NICs, switches and the pod's "
                             "secondary network definitions)");
  }
  return CheckResult::pass(id, title, detail);
}

CheckResult checkDeviceAccess(const DoctorInputs& in) {
  const char* id = "device-access";
  const char* title = "/dev/infiniband access";
  std::set<std::string> selected;
  for (const auto& p : in.resolution->ports) {
    if (p.selected) selected.insert(p.device);
  }
  if (selected.empty()) return CheckResult::skip(id, title, "no selected device");
  if (!in.liveMachine && !in.devRootGiven) return CheckResult::skip(id, title, "not this machine (give --dev-root)");
  // class/infiniband_verbs/uverbsN/ibdev names the RDMA device behind /dev/infiniband/uverbsN.
  std::map<std::string, std::string> node;
  auto entries = in.sysfs->entries("class/infiniband_verbs");
  if (entries.isOk()) {
    for (const auto& uverbs : *entries) {
      auto ibdev = in.sysfs->attribute("class/infiniband_verbs/" + uverbs + "/ibdev");
      if (ibdev.isOk()) node[*ibdev] = uverbs;
    }
  }
  std::string missing, detail;
  for (const auto& device : selected) {
    auto it = node.find(device);
    std::string path = in.devRoot + "/infiniband/" + (it == node.end() ? std::string("?") : it->second);
    bool usable = it != node.end() && ::access(path.c_str(), R_OK | W_OK) == 0;
    detail += (detail.empty() ? "" : ", ") + device + " -> " + path + (usable ? "" : " (not usable)");
    if (!usable) missing += (missing.empty() ? "" : ", ") + device;
  }
  if (!missing.empty()) {
    return CheckResult::fail(id, title, detail,
                             "the pod needs read/write access to its uverbs devices: request the RDMA resource "
                             "(e.g. rdma/roce_gdr or the SR-IOV VF resource) rather than only the netdevs");
  }
  return CheckResult::pass(id, title, detail);
}

}  // namespace nccl_roce::doctor

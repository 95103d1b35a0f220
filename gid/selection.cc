#include "gid/selection.h"

#include <algorithm>
#include <map>

#include "common/log.h"
#include "gid/sysfs_formats.h"

namespace nccl_roce::gid {

namespace {

// Per-port working state between the rules.
struct Candidate {
  PortDecision decision;
  bool eligible = false;              // passed every per-port rule
  std::optional<const GidEntry*> v4;  // best qualifying GID per family
  std::optional<const GidEntry*> v6;
};

std::string rateText(const std::optional<double>& gbps) {
  if (!gbps) return "unknown rate";
  return format("%g Gb/s", *gbps);
}

bool qualifies(const Machine& machine, const GidEntry& entry) {
  if (!entry.notExamined.empty() || entry.value.isZero() || entry.value.isLinkLocal()) return false;
  if (!entry.type || *entry.type != GidType::kRoceV2) return false;
  if (!entry.netdev || machine.visibleNetdevs.count(*entry.netdev) == 0) return false;
  if (machine.addresses) {
    auto addresses = machine.addressesOf(*entry.netdev);
    if (std::find(addresses.begin(), addresses.end(), entry.value) == addresses.end()) return false;
  }
  return true;
}

// "no qualifying RoCE v2 GID (2 link-local, 6 not configured in this namespace, 1 RoCE v1)".
std::string whyNoGid(const Machine& machine, const PortInfo& port) {
  std::map<std::string, int> counts;
  for (const auto& entry : port.gids) {
    if (entry.value.isLinkLocal()) {
      ++counts["link-local"];
    } else if (!entry.notExamined.empty()) {
      ++counts["with addresses not configured in this network namespace"];
    } else if (!entry.netdev) {
      ++counts["whose netdev is unreadable"];
    } else if (machine.visibleNetdevs.count(*entry.netdev) == 0) {
      ++counts["on netdevs outside this network namespace"];
    } else if (!entry.type) {
      ++counts["whose type is unreadable"];
    } else if (*entry.type != GidType::kRoceV2) {
      ++counts["RoCE v1"];
    } else {
      ++counts["whose address is not on their netdev"];
    }
  }
  if (!port.gidsScanned) return "GID table unreadable";
  std::string out = "no qualifying RoCE v2 GID";
  if (counts.empty()) return out + " (the table holds no populated entry)";
  out += " (";
  bool first = true;
  for (const auto& [what, n] : counts) {
    out += (first ? "" : ", ") + std::to_string(n) + " " + what;
    first = false;
  }
  return out + ")";
}

Candidate evaluatePort(const Machine& machine, const DeviceInfo& device, const PortInfo& port) {
  Candidate c;
  PortDecision& d = c.decision;
  d.device = device.name;
  d.port = port.number;
  d.linkLayer = port.linkLayer;
  d.state = port.state ? port.state->text : "";
  d.rateGbps = port.rateGbps;
  if (!port.state) {
    d.reason = port.problems.empty() ? "port state unreadable" : "port " + port.problems.front();
  } else if (port.state->code != kPortActive) {
    d.reason = "port is " + port.state->text + " (state " + std::to_string(port.state->code) + ")";
  } else if (port.physState && port.physState->code != kPhysLinkUp) {
    d.reason = "physical link is " + port.physState->text + ", not LinkUp";
  } else if (!device.verbsOpenError.empty()) {
    d.reason = "listed in sysfs but this pod cannot open it (" + device.verbsOpenError + ")";
  } else if (port.linkLayer == LinkLayer::kUnknown) {
    d.reason = "link layer is neither InfiniBand nor Ethernet";
  } else if (port.linkLayer == LinkLayer::kInfiniBand) {
    c.eligible = true;
  } else {
    for (const auto& entry : port.gids) {
      if (!qualifies(machine, entry)) continue;
      auto& slot = entry.value.isIpv4Mapped() ? c.v4 : c.v6;
      if (!slot) slot = &entry;  // entries are in ascending index order: the first is the lowest
    }
    c.eligible = c.v4 || c.v6;
    if (!c.eligible) d.reason = whyNoGid(machine, port);
  }
  return c;
}

bool rateBelowHalf(const std::optional<double>& rate, double fastest) {
  return rate && fastest > 0 && *rate * 2 < fastest;  // exactly half is kept
}

}  // namespace

bool Selection::anySelected() const {
  return std::any_of(ports.begin(), ports.end(), [](const PortDecision& p) { return p.selected; });
}

std::vector<const PortDecision*> Selection::selected() const {
  std::vector<const PortDecision*> out;
  for (const auto& p : ports) {
    if (p.selected) out.push_back(&p);
  }
  return out;
}

Selection selectPorts(const Machine& machine) {
  Selection selection;
  std::vector<Candidate> candidates;
  for (const auto& device : machine.devices) {
    if (device.ports.empty()) {
      Candidate c;
      c.decision.device = device.name;
      c.decision.reason = device.problems.empty() ? "no ports" : device.problems.front();
      candidates.push_back(c);
      continue;
    }
    for (const auto& port : device.ports) candidates.push_back(evaluatePort(machine, device, port));
  }

  // One fabric: any usable InfiniBand port makes it InfiniBand.
  size_t activeIb = std::count_if(candidates.begin(), candidates.end(), [](const Candidate& c) {
    return c.eligible && c.decision.linkLayer == LinkLayer::kInfiniBand;
  });
  LinkLayer fabric = activeIb > 0 ? LinkLayer::kInfiniBand : LinkLayer::kEthernet;
  for (auto& c : candidates) {
    if (c.eligible && c.decision.linkLayer != fabric) {
      c.eligible = false;
      c.decision.reason = "InfiniBand fabric chosen (" + std::to_string(activeIb) +
                          " InfiniBand port(s) active); Ethernet ports are not used";
    }
  }

  // One address family: the family in which the fastest candidates qualify (ties: IPv4).
  if (fabric == LinkLayer::kEthernet) {
    std::optional<double> fastest;
    for (const auto& c : candidates) {
      if (c.eligible && c.decision.rateGbps) fastest = std::max(fastest.value_or(0), *c.decision.rateGbps);
    }
    bool v4AtFastest = false, anyV4 = false, anyV6 = false;
    for (const auto& c : candidates) {
      if (!c.eligible) continue;
      anyV4 |= bool(c.v4);
      anyV6 |= bool(c.v6);
      bool atFastest = !fastest || (c.decision.rateGbps && *c.decision.rateGbps == *fastest);
      if (atFastest && c.v4) v4AtFastest = true;
    }
    if (anyV4 || anyV6) {
      AddressFamily family = (v4AtFastest || !anyV6) ? AddressFamily::kIpv4 : AddressFamily::kIpv6;
      selection.family = family;
      for (auto& c : candidates) {
        if (!c.eligible) continue;
        auto pick = family == AddressFamily::kIpv4 ? c.v4 : c.v6;
        if (!pick) {
          c.eligible = false;
          c.decision.reason = std::string("qualifies only with an ") +
                              familyName(family == AddressFamily::kIpv4 ? AddressFamily::kIpv6 : AddressFamily::kIpv4) +
                              " GID; the selected ports use " + familyName(family);
          continue;
        }
        c.decision.gidIndex = (*pick)->index;
        c.decision.gid = (*pick)->value;
        c.decision.netdev = (*pick)->netdev;
      }
    }
  }

  // Rails only: drop candidates slower than half the fastest (management NICs beside 400G rails).
  double fastest = 0;
  for (const auto& c : candidates) {
    if (c.eligible && c.decision.rateGbps) fastest = std::max(fastest, *c.decision.rateGbps);
  }
  for (auto& c : candidates) {
    if (c.eligible && rateBelowHalf(c.decision.rateGbps, fastest)) {
      c.eligible = false;
      c.decision.gidIndex.reset();
      c.decision.gid.reset();
      c.decision.netdev.reset();
      c.decision.reason = rateText(c.decision.rateGbps) + " is below half of the fastest candidate (" +
                          rateText(fastest) + "): not a rail";
    }
  }

  size_t taken = 0;
  for (auto& c : candidates) {
    PortDecision& d = c.decision;
    if (c.eligible && taken >= kNcclMaxDevices) {
      c.eligible = false;
      d.gidIndex.reset();
      d.gid.reset();
      d.netdev.reset();
      d.reason = "NCCL uses at most 32 device ports; this one is past the limit";
    }
    if (c.eligible) {
      ++taken;
      d.selected = true;
      if (d.linkLayer == LinkLayer::kInfiniBand) {
        d.reason = "active InfiniBand port, " + rateText(d.rateGbps);
      } else {
        d.reason = "active RoCE port; RoCE v2 GID " + std::to_string(*d.gidIndex) + " (" + d.gid->toAddressString() +
                   " on " + d.netdev.value_or("?") + "), " + rateText(d.rateGbps);
      }
    }
    selection.ports.push_back(std::move(d));
  }
  if (taken > 0) selection.fabric = fabric;
  if (taken == 0) selection.family.reset();
  if (taken == kNcclMaxDevices) {
    size_t eligibleTotal = std::count_if(selection.ports.begin(), selection.ports.end(), [](const PortDecision& p) {
      return !p.selected && p.reason.find("at most 32") != std::string::npos;
    });
    if (eligibleTotal > 0) {
      selection.warnings.push_back(std::to_string(eligibleTotal) +
                                   " qualifying port(s) left out: NCCL uses at most 32 device ports");
    }
  }
  return selection;
}

}  // namespace nccl_roce::gid

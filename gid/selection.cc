#include "gid/selection.h"

#include <algorithm>

#include "gid/reasons.h"

namespace nccl_roce::gid {

namespace {

// A port between the phases: its decision so far and its best qualifying GID per family.
struct Candidate {
  PortDecision decision;
  const GidEntry* v4 = nullptr;  // a routable IPv4-mapped GID if one qualifies, else a 169.254 one
  const GidEntry* v6 = nullptr;

  bool eligible() const { return !decision.exclusion; }
};

void exclude(Candidate& c, ExclusionReason reason) {
  c.decision.exclusion = std::move(reason);
  c.decision.gidIndex.reset();
  c.decision.gid.reset();
  c.decision.netdev.reset();
}

PortDecision deviceDecision(const DeviceInfo& device) {
  PortDecision d;
  d.device = device.name;
  d.pciAddress = device.pciAddress;
  d.numaNode = device.numaNode;
  d.role = device.role;
  return d;
}

// The rules every port must pass on its own: state, physical link, this pod's access, a known link layer.
std::optional<ExclusionReason> portRuleFailure(const DeviceInfo& device, const PortInfo& port) {
  if (!port.state) return excluded::StateUnreadable{port.problems.empty() ? "" : port.problems.front()};
  if (port.state->code != PortState::kActive) return excluded::NotActive{*port.state};
  if (port.physState && port.physState->code != PhysState::kLinkUp) return excluded::PhysicalLinkDown{*port.physState};
  if (!device.verbsOpenError.empty()) return excluded::CannotOpen{device.verbsOpenError};
  if (port.linkLayer == LinkLayer::kUnknown) return excluded::UnknownLinkLayer{};
  return std::nullopt;
}

// A RoCE port's best qualifying GID per family (lowest index; a routable IPv4 one before a 169.254 one), or
// why none qualifies.
std::optional<ExclusionReason> chooseGids(const Machine& machine, const PortInfo& port, Candidate& c) {
  if (!port.gidsScanned) return excluded::GidTableUnreadable{};
  excluded::NoQualifyingGid none;
  const GidEntry* linkLocalV4 = nullptr;
  for (const auto& entry : port.gids) {  // ascending index: the first of each kind is the lowest
    if (auto why = gidRejection(machine, entry)) {
      ++none.rejected[*why];
      continue;
    }
    const GidEntry*& slot = !entry.value.isIpv4Mapped() ? c.v6 : entry.value.isIpv4LinkLocal() ? linkLocalV4 : c.v4;
    if (slot == nullptr) slot = &entry;
  }
  if (c.v4 == nullptr) c.v4 = linkLocalV4;
  if (c.v4 == nullptr && c.v6 == nullptr) return none;
  return std::nullopt;
}

Candidate evaluatePort(const Machine& machine, const DeviceInfo& device, const PortInfo& port) {
  Candidate c;
  c.decision = deviceDecision(device);
  c.decision.port = port.number;
  c.decision.linkLayer = port.linkLayer;
  c.decision.state = port.state;
  c.decision.rateGbps = port.rateGbps;
  std::optional<ExclusionReason> failure = portRuleFailure(device, port);
  if (!failure && port.linkLayer == LinkLayer::kEthernet) failure = chooseGids(machine, port, c);
  if (failure) exclude(c, std::move(*failure));
  return c;
}

// Phase 1: every port (a device whose ports cannot be listed stands for itself) against the per-port rules.
std::vector<Candidate> evaluatePorts(const Machine& machine) {
  std::vector<Candidate> candidates;
  for (const auto& device : machine.devices) {
    if (device.ports.empty()) {
      Candidate c;
      c.decision = deviceDecision(device);
      exclude(c, excluded::DeviceUnusable{device.problems.empty() ? "" : device.problems.front()});
      candidates.push_back(std::move(c));
      continue;
    }
    for (const auto& port : device.ports) candidates.push_back(evaluatePort(machine, device, port));
  }
  return candidates;
}

// Phase 2: a port the user's NCCL_IB_HCA does not admit is one NCCL will not use.
void applyUserHcaList(std::vector<Candidate>& candidates, const SelectionOptions& options) {
  if (!options.userHcaList) return;
  for (auto& c : candidates) {
    if (c.eligible() && !options.userHcaList->admits(c.decision.device, c.decision.port)) {
      exclude(c, excluded::NotAdmittedByUserList{options.userHcaText});
    }
  }
}

// Phase 3: one fabric; any usable InfiniBand port makes it InfiniBand.
LinkLayer chooseFabric(std::vector<Candidate>& candidates) {
  size_t activeIb = std::count_if(candidates.begin(), candidates.end(), [](const Candidate& c) {
    return c.eligible() && c.decision.linkLayer == LinkLayer::kInfiniBand;
  });
  LinkLayer fabric = activeIb > 0 ? LinkLayer::kInfiniBand : LinkLayer::kEthernet;
  for (auto& c : candidates) {
    if (c.eligible() && c.decision.linkLayer != fabric) exclude(c, excluded::OtherFabric{activeIb});
  }
  return fabric;
}

// The fastest rate among the candidates; nullopt when none has a known rate.
std::optional<double> fastestRate(const std::vector<Candidate>& candidates) {
  std::optional<double> fastest;
  for (const auto& c : candidates) {
    if (c.eligible() && c.decision.rateGbps) fastest = std::max(fastest.value_or(0), *c.decision.rateGbps);
  }
  return fastest;
}

// Phase 4 (RoCE): one address family, the one that keeps more of the fastest candidates (ties: IPv4, NCCL's
// default), so one stray IPv4 rail cannot push eight IPv6 rails out. Each kept port gets its GID.
std::optional<AddressFamily> chooseFamily(std::vector<Candidate>& candidates) {
  std::optional<double> fastest = fastestRate(candidates);
  size_t v4AtFastest = 0, v6AtFastest = 0;
  for (const auto& c : candidates) {
    bool atFastest = !fastest || (c.decision.rateGbps && *c.decision.rateGbps == *fastest);
    if (!c.eligible() || !atFastest) continue;
    v4AtFastest += c.v4 != nullptr ? 1 : 0;
    v6AtFastest += c.v6 != nullptr ? 1 : 0;
  }
  if (v4AtFastest == 0 && v6AtFastest == 0) return std::nullopt;
  AddressFamily family = v4AtFastest >= v6AtFastest ? AddressFamily::kIpv4 : AddressFamily::kIpv6;
  for (auto& c : candidates) {
    if (!c.eligible()) continue;
    const GidEntry* pick = family == AddressFamily::kIpv4 ? c.v4 : c.v6;
    if (pick == nullptr) {
      exclude(c, excluded::OtherFamily{family});
      continue;
    }
    c.decision.gidIndex = pick->index;
    c.decision.gid = pick->value;
    c.decision.netdev = pick->netdev;
  }
  return family;
}

// Phase 5: rails only; a candidate slower than half the fastest (a management NIC beside 400G rails) is
// dropped, exactly half is kept, an unknown rate filters nothing.
void dropSlowerThanRails(std::vector<Candidate>& candidates) {
  std::optional<double> fastest = fastestRate(candidates);
  if (!fastest) return;
  for (auto& c : candidates) {
    const std::optional<double>& rate = c.decision.rateGbps;
    if (c.eligible() && rate && *rate * 2 < *fastest) exclude(c, excluded::SlowerThanRails{*rate, *fastest});
  }
}

// Phase 6: NCCL takes at most kNcclMaxDevices ports, in our (natural name) order. Returns how many it drops.
size_t capAtNcclLimit(std::vector<Candidate>& candidates) {
  size_t taken = 0, dropped = 0;
  for (auto& c : candidates) {
    if (!c.eligible()) continue;
    if (taken < kNcclMaxDevices) {
      ++taken;
    } else {
      exclude(c, excluded::PastDeviceLimit{kNcclMaxDevices});
      ++dropped;
    }
  }
  return dropped;
}

// Says which ports of a user-set NCCL_IB_HCA we would not have chosen, and why.
void warnAboutUserListedPorts(Selection& selection, const SelectionOptions& options) {
  if (!options.userHcaList) return;
  for (const PortDecision* p : admittedButNotSelected(selection.ports, *options.userHcaList)) {
    selection.warnings.push_back("the user's NCCL_IB_HCA (" + options.userHcaText + ") lets NCCL use " + p->device +
                                 ":" + std::to_string(p->port) + ", which was not selected: " + reasonText(*p));
  }
}

}  // namespace

std::vector<const PortDecision*> admittedButNotSelected(const std::vector<PortDecision>& ports,
                                                        const NcclHcaList& userList) {
  std::vector<const PortDecision*> out;
  for (const PortDecision& p : ports) {
    if (!p.selected && p.port > 0 && p.isActive() && userList.admits(p.device, p.port)) out.push_back(&p);
  }
  return out;
}

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

Selection selectPorts(const Machine& machine, const SelectionOptions& options) {
  std::vector<Candidate> candidates = evaluatePorts(machine);
  applyUserHcaList(candidates, options);
  LinkLayer fabric = chooseFabric(candidates);
  std::optional<AddressFamily> family;
  if (fabric == LinkLayer::kEthernet) family = chooseFamily(candidates);
  dropSlowerThanRails(candidates);
  size_t leftOut = capAtNcclLimit(candidates);

  Selection selection;
  for (auto& c : candidates) {
    c.decision.selected = c.eligible();
    selection.ports.push_back(std::move(c.decision));
  }
  if (selection.anySelected()) {
    selection.fabric = fabric;
    selection.family = family;
  }
  if (leftOut > 0) {
    selection.warnings.push_back(std::to_string(leftOut) + " qualifying port(s) left out: NCCL uses at most " +
                                 std::to_string(kNcclMaxDevices) + " device ports");
  }
  warnAboutUserListedPorts(selection, options);
  return selection;
}

}  // namespace nccl_roce::gid

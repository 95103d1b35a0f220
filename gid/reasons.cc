#include "gid/reasons.h"

#include "common/log.h"

namespace nccl_roce::gid {

namespace {

std::string rateText(const std::optional<double>& gbps) {
  if (!gbps) return "unknown rate";
  return format("%g Gb/s", *gbps);
}

// "no qualifying RoCE v2 GID (2 link-local, 6 with addresses not configured in this network namespace)";
// causes in the order of their words, as users have always read them.
std::string noQualifyingGidText(const excluded::NoQualifyingGid& none) {
  std::string out = "no qualifying RoCE v2 GID";
  if (none.rejected.empty()) return out + " (the table holds no populated entry)";
  std::map<std::string, int> byWords;
  for (const auto& [rejection, count] : none.rejected) byWords[gidRejectionText(rejection)] += count;
  std::string counts;
  for (const auto& [words, count] : byWords)
    counts += (counts.empty() ? "" : ", ") + std::to_string(count) + " " + words;
  return out + " (" + counts + ")";
}

struct ExclusionWords {
  std::string operator()(const excluded::DeviceUnusable& r) const { return r.problem.empty() ? "no ports" : r.problem; }
  std::string operator()(const excluded::StateUnreadable& r) const {
    return r.problem.empty() ? "port state unreadable" : "port " + r.problem;
  }
  std::string operator()(const excluded::NotActive& r) const {
    return "port is " + r.state.text + " (state " + std::to_string(r.state.number()) + ")";
  }
  std::string operator()(const excluded::PhysicalLinkDown& r) const {
    return "physical link is " + r.physState.text + ", not LinkUp";
  }
  std::string operator()(const excluded::CannotOpen& r) const {
    return "listed in sysfs but this pod cannot open it (" + r.verbsError + ")";
  }
  std::string operator()(const excluded::UnknownLinkLayer&) const {
    return "link layer is neither InfiniBand nor Ethernet";
  }
  std::string operator()(const excluded::GidTableUnreadable&) const { return "GID table unreadable"; }
  std::string operator()(const excluded::NoQualifyingGid& r) const { return noQualifyingGidText(r); }
  std::string operator()(const excluded::NotAdmittedByUserList& r) const {
    return "not admitted by the user's NCCL_IB_HCA (" + r.userList + ")";
  }
  std::string operator()(const excluded::OtherFabric& r) const {
    return "InfiniBand fabric chosen (" + std::to_string(r.activeInfinibandPorts) +
           " InfiniBand port(s) active); Ethernet ports are not used";
  }
  std::string operator()(const excluded::OtherFamily& r) const {
    AddressFamily other = r.selected == AddressFamily::kIpv4 ? AddressFamily::kIpv6 : AddressFamily::kIpv4;
    return std::string("qualifies only with an ") + familyName(other) + " GID; the selected ports use " +
           familyName(r.selected);
  }
  std::string operator()(const excluded::SlowerThanRails& r) const {
    return rateText(r.gbps) + " is below half of the fastest candidate (" + rateText(r.fastestGbps) + "): not a rail";
  }
  std::string operator()(const excluded::PastDeviceLimit& r) const {
    return "NCCL uses at most " + std::to_string(r.limit) + " device ports; this one is past the limit";
  }
};

}  // namespace

const char* gidRejectionText(GidRejection rejection) {
  switch (rejection) {
    case GidRejection::kEmpty:
      return "empty";
    case GidRejection::kIpv6LinkLocal:
      return "link-local";
    case GidRejection::kAddressNotHere:
      return "with addresses not configured in this network namespace";
    case GidRejection::kNetdevUnreadable:
      return "whose netdev is unreadable";
    case GidRejection::kNetdevElsewhere:
      return "on netdevs outside this network namespace";
    case GidRejection::kTypeUnreadable:
      return "whose type is unreadable";
    case GidRejection::kNotRoceV2:
      return "RoCE v1";
    case GidRejection::kAddressNotOnNetdev:
      return "whose address is not on their netdev";
  }
  return "unknown";
}

std::string exclusionText(const ExclusionReason& reason) {
  return std::visit(ExclusionWords{}, reason);
}

std::string reasonText(const PortDecision& p) {
  if (p.exclusion) return exclusionText(*p.exclusion);
  if (p.linkLayer == LinkLayer::kInfiniBand) return "active InfiniBand port, " + rateText(p.rateGbps);
  std::string gid = p.gidIndex ? std::to_string(*p.gidIndex) : std::string("?");
  std::string address = p.gid ? p.gid->toAddressString() : std::string("?");
  return "active RoCE port; RoCE v2 GID " + gid + " (" + address + " on " + p.netdev.value_or("?") + "), " +
         rateText(p.rateGbps);
}

}  // namespace nccl_roce::gid

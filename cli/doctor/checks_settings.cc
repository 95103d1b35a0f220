#include <algorithm>
#include <cstdlib>

#include "cli/doctor/checks.h"
#include "common/strings.h"
#include "gid/gid_value.h"
#include "gid/reasons.h"
#include "gid/selection.h"
#include "gid/sysfs_formats.h"

namespace nccl_roce::doctor {

namespace {

std::string portName(const gid::PortDecision& p) {
  return p.device + ":" + std::to_string(p.port);
}

// What the entry at `index` of a selected port's table is, read straight from sysfs ("" when it is the resolved
// one). Said without the port, so that ports with the same problem share one sentence.
std::string problemWithIndex(const DoctorInputs& in, const gid::PortDecision& p, long index) {
  if (p.gidIndex && *p.gidIndex == index) return "";
  std::string base = "class/infiniband/" + p.device + "/ports/" + std::to_string(p.port);
  std::string n = std::to_string(index);
  auto text = in.sysfs->attribute(base + "/gids/" + n);
  auto value = text.isOk() ? gid::GidValue::parseKernel(*text) : std::nullopt;
  if (!value || value->isZero()) return "is empty";
  if (value->isIpv6LinkLocal()) return "is link-local (" + value->toAddressString() + ")";
  auto type = in.sysfs->attribute(base + "/gid_attrs/types/" + n);
  if (type.isOk() && gid::parseGidType(*type) == gid::GidType::kRoceV1) return "is RoCE v1";
  if (in.resolution->machine && in.resolution->machine->addresses && !in.resolution->machine->hasAddress(*value)) {
    return "carries " + value->toAddressString() + ", which is not an address of this pod (another pod's?)";
  }
  return "differs from the resolved " + (p.gidIndex ? std::to_string(*p.gidIndex) : std::string("?"));
}

// NCCL_IB_GID_INDEX against each selected Ethernet port's table: one sentence per kind of problem, naming its
// ports, so that eight rails with the same empty entry are one line.
void addGidIndexProblems(const DoctorInputs& in, const std::string& gidIndex, std::vector<std::string>* problems) {
  auto parsed = parseUnsigned(gidIndex);
  if (!parsed) {
    // NCCL reads it with strtoll(value, NULL, 0): "auto" is 0, "010" is 8.
    long ncclReads = std::strtol(gidIndex.c_str(), nullptr, 0);
    problems->push_back("NCCL_IB_GID_INDEX='" + gidIndex + "' is read by NCCL as " + std::to_string(ncclReads));
    parsed = static_cast<uint64_t>(ncclReads < 0 ? 0 : ncclReads);
  }
  std::vector<std::pair<std::string, std::string>> byProblem;  // problem -> ports, in port order
  for (const auto& p : in.resolution->ports) {
    if (!p.selected || p.linkLayer != gid::LinkLayer::kEthernet) continue;
    std::string problem = problemWithIndex(in, p, static_cast<long>(*parsed));
    if (problem.empty()) continue;
    auto it = std::find_if(byProblem.begin(), byProblem.end(), [&](const auto& e) { return e.first == problem; });
    if (it == byProblem.end()) {
      byProblem.emplace_back(problem, portName(p));
    } else {
      it->second += ", " + portName(p);
    }
  }
  for (const auto& [problem, ports] : byProblem) {
    problems->push_back("NCCL_IB_GID_INDEX=" + gidIndex + ": GID " + std::to_string(*parsed) + " on " + ports + " " +
                        problem);
  }
}

// Without a leading '=', NCCL_IB_HCA matches device names by prefix: "mlx5_1" also selects mlx5_10 to mlx5_19.
void addHcaProblems(const DoctorInputs& in, const std::string& hca, std::vector<std::string>* problems) {
  for (std::string_view token : split(trim(hca).substr(hca[0] == '^' ? 1 : 0), ',')) {
    std::string name(trim(token.substr(0, token.find(':'))));
    std::vector<std::string> matched;
    for (const auto& device : in.resolution->machine->devices) {
      if (!name.empty() && startsWith(device.name, name)) matched.push_back(device.name);
    }
    if (matched.size() > 1) {
      problems->push_back("NCCL_IB_HCA token '" + name + "' is a prefix: it also matches " + matched[1] +
                          (matched.size() > 2 ? " and more" : ""));
    }
  }
}

// A port the user's NCCL_IB_HCA lets NCCL use that the resolution left out (no RoCE v2 GID of this pod, say):
// the checks of that port fail on it too.
void addUnselectedPortProblems(const DoctorInputs& in, const std::string& hca, std::vector<std::string>* problems) {
  for (const gid::PortDecision* p : gid::admittedButNotSelected(in.resolution->ports, gid::NcclHcaList::parse(hca))) {
    problems->push_back("NCCL_IB_HCA '" + hca + "' lets NCCL use " + portName(*p) +
                        ", which the resolution left out: " + gid::reasonText(*p));
  }
}

}  // namespace

CheckResult checkUserSettings(const DoctorInputs& in) {
  const char* id = "user-settings";
  const char* title = "Your NCCL settings against the resolution";
  std::vector<std::string> problems;
  std::optional<std::string> gidIndex = in.env->get("NCCL_IB_GID_INDEX");
  if (gidIndex && !gidIndex->empty()) addGidIndexProblems(in, *gidIndex, &problems);
  std::optional<std::string> hca = in.env->get("NCCL_IB_HCA");
  if (hca && !hca->empty() && (*hca)[0] != '=' && !startsWith(*hca, "^=") && in.resolution->machine) {
    addHcaProblems(in, *hca, &problems);
  }
  if (hca && !hca->empty()) addUnselectedPortProblems(in, *hca, &problems);
  std::optional<std::string> family = in.env->get("NCCL_IB_ADDR_FAMILY");
  if (family && *family != "AF_INET" && *family != "AF_INET6") {
    problems.push_back("NCCL_IB_ADDR_FAMILY='" + *family +
                       "' is neither AF_INET nor AF_INET6; NCCL treats it as AF_INET");
  }
  if (problems.empty()) {
    return CheckResult::pass(id, title,
                             gidIndex || hca ? "your settings agree with the resolution"
                                             : "no NCCL_IB_GID_INDEX or NCCL_IB_HCA set: the resolution applies");
  }
  std::string detail;
  for (const auto& p : problems) detail += (detail.empty() ? "" : "; ") + p;
  return CheckResult::fail(id, title, detail,
                           "unset these variables (or correct them): a variable you set always wins over the "
                           "resolution, so a wrong one breaks RDMA (NCCL: ibv_modify_qp EINVAL or timeouts)");
}

}  // namespace nccl_roce::doctor

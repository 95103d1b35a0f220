#include "fleet/ab_fit_switchback.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/log.h"
#include "fleet/switchback_comparison.h"

namespace nccl_roce::fleet {

namespace {

using GroupKey = std::pair<int, uint64_t>;  // node count, cell

// One arm's windows and collectives in one (node count, cell), over every switchback communicator there.
struct PairedSide {
  verdicts::PairedSums paired;
  uint64_t collectives = 0;
  int communicators = 0;
};

std::map<GroupKey, std::map<std::string, PairedSide>> pairedGroups(const Fleet& fleet) {
  std::map<GroupKey, std::map<std::string, PairedSide>> groups;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (!c.switchback || c.nNodes <= 0) continue;
    for (const auto& [key, cell] : c.switchback->cells) {
      PairedSide& side = groups[{c.nNodes, key.first}][key.second];
      side.paired.add(cell.paired);
      side.collectives += cell.count;
      ++side.communicators;
    }
  }
  return groups;
}

}  // namespace

std::map<GroupKey, DecisionCounts> switchbackDecisions(const Fleet& fleet, const std::string& arm) {
  std::map<GroupKey, DecisionCounts> out;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (!c.switchback || c.nNodes <= 0) continue;
    for (const auto& [cell, decisions] : c.decisions) {
      for (const auto& [d, calls] : decisions) {
        if (d.arm == arm) out[{c.nNodes, cell}][d] += calls;
      }
    }
  }
  return out;
}

Status fitSwitchbackCells(const Fleet& fleet, const AbFitOptions& o, AbFit* fit) {
  const FleetCommunicator* first = nullptr;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.switchback && !c.switchback->arms.empty() && c.nNodes > 0 && first == nullptr) first = &c;
  }
  if (first == nullptr) {
    return Status(StatusCode::kFailedPrecondition,
                  "nothing to fit: no switchback communicator says its node count (ab fit groups by it)");
  }
  const std::vector<std::string>& arms = first->switchback->arms;
  if (o.control != arms[0] && o.control != AbFitOptions().control) {
    return Status(StatusCode::kInvalidArgument,
                  "a switchback's windows pair every arm with its reference, '" + arms[0] +
                      "' (the experiment's first arm): --control must name it, or be left out");
  }
  fit->control = arms[0];
  for (const FleetCommunicator& c : fleet.communicators) {
    if (!c.switchback || c.nNodes <= 0) continue;
    for (const std::string& arm : arms) ++fit->communicatorsPerArm[arm];
  }
  std::map<std::string, std::map<GroupKey, DecisionCounts>> decided;
  for (const std::string& arm : arms) decided[arm] = switchbackDecisions(fleet, arm);
  double mostWindows = 0;
  for (const auto& [key, sides] : pairedGroups(fleet)) {
    CellFit cf;
    cf.nodes = key.first;
    cf.cell = key.second;
    auto reference = sides.find(arms[0]);
    cf.communicatorsControl = reference == sides.end() ? 0 : reference->second.communicators;
    for (const auto& [arm, side] : sides) {
      if (arm == arms[0]) continue;
      mostWindows = std::max(mostWindows, side.paired.windows);
      if (side.paired.windows < o.settings.minUnits) continue;
      StatusOr<verdicts::RatioInterval> vs = verdicts::pairedRatio(side.paired, logBinWidth(), o.settings.confidence);
      if (!vs.isOk()) {
        fit->notes.push_back(describeCell(key.second) + " on " + std::to_string(key.first) + " nodes: arm '" + arm +
                             "' not compared: " + vs.status().message());
        continue;
      }
      ArmChallenge challenge{
          arm, *vs, reference == sides.end() ? 0 : reference->second.collectives, side.collectives, std::nullopt, ""};
      challenge.configuration = configurationOf(decided[arm][key], &challenge.whyNoConfiguration);
      cf.challenges.push_back(std::move(challenge));
    }
    if (!cf.challenges.empty()) fit->cells.push_back(std::move(cf));
  }
  if (fit->cells.empty()) {
    return Status(StatusCode::kFailedPrecondition,
                  format("too little evidence to fit a policy: an arm has at most %.0f windows paired with '%s' in "
                         "any size bucket and node count; ab fit needs %d: run the experiment longer",
                         std::floor(mostWindows), arms[0].c_str(), o.settings.minUnits));
  }
  return Status::ok();
}

}  // namespace nccl_roce::fleet

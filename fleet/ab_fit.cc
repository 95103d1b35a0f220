#include "fleet/ab_fit.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/ab_fit_switchback.h"
#include "fleet/arm_census.h"
#include "fleet/switchback_comparison.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"
#include "verdicts/winner_selection.h"

namespace nccl_roce::fleet {

namespace {

// One arm's communicators in one (node count, cell): a value each, and what its tuner decided there.
struct ArmSide {
  std::vector<double> values;  // geometric mean of each communicator's collectives, microseconds
  uint64_t collectives = 0;
  DecisionCounts decisions;
};
using GroupKey = std::pair<int, uint64_t>;  // node count, cell
using Groups = std::map<GroupKey, std::map<std::string, ArmSide>>;

// Every communicator with an arm and a node count, as a unit of the cells where its GPU timed enough collectives.
// Rules are fitted from GPU timings only: a CPU clock measures something else (the fleet's notes count them).
Groups groupUnits(const Fleet& fleet, uint64_t minCollectives) {
  Groups groups;
  for (const FleetCommunicator& c : fleet.communicators) {
    auto gpu = c.timings.find(TimingClock::kGpu);
    if (c.arm.empty() || c.nNodes <= 0 || gpu == c.timings.end()) continue;
    for (const auto& [cell, timing] : gpu->second) {
      std::optional<double> value = communicatorValueUs(timing, minCollectives);
      if (!value) continue;
      ArmSide& side = groups[{c.nNodes, cell}][c.arm];
      side.values.push_back(*value);
      side.collectives += timing.collectives;
      auto decided = c.decisions.find(cell);
      if (decided == c.decisions.end()) continue;
      for (const auto& [decision, calls] : decided->second) side.decisions[decision] += calls;
    }
  }
  return groups;
}

// Cells an arm could not be challenged in for want of communicators, for one note per arm, node count and
// collective, and for the refusal's advice.
struct Thin {
  std::map<std::tuple<std::string, int, int>, std::string> leftOut;  // (arm, nodes, collective) -> buckets
  std::map<std::string, int> mostPerArm;                             // communicators in any one bucket
};

void noteThin(Thin& thin, const std::string& arm, const GroupKey& key, int control, int communicators) {
  std::string& buckets = thin.leftOut[{arm, key.first, collectiveOfCell(key.second)}];
  buckets += (buckets.empty() ? "" : ", ") + telemetry::bucketLabel(bucketOfCell(key.second)) + " (" +
             std::to_string(control) + "/" + std::to_string(communicators) + ")";
}

// One cell's challenges: every arm with enough communicators there, against the control.
CellFit challengesAt(const GroupKey& key, const std::map<std::string, ArmSide>& arms, const AbFitOptions& o, Thin& thin,
                     AbFit* fit) {
  static const ArmSide kNone;
  auto found = arms.find(o.control);
  const ArmSide& control = found == arms.end() ? kNone : found->second;
  CellFit cf;
  cf.nodes = key.first;
  cf.cell = key.second;
  cf.communicatorsControl = static_cast<int>(control.values.size());
  for (const auto& [arm, side] : arms) {
    if (arm == o.control) continue;
    int n = static_cast<int>(side.values.size());
    int& most = thin.mostPerArm[arm];
    most = std::max(most, n);
    if (cf.communicatorsControl < o.settings.minUnits || n < o.settings.minUnits) {
      noteThin(thin, arm, key, cf.communicatorsControl, n);
      continue;
    }
    StatusOr<verdicts::RatioInterval> vs = verdicts::ratioOfGeometricMeans(
        control.values, side.values, o.settings.confidence, o.settings.degreesOfFreedom);
    if (!vs.isOk()) {
      fit->notes.push_back(describeCell(key.second) + " on " + std::to_string(key.first) + " nodes: arm '" + arm +
                           "' not compared: " + vs.status().message());
      continue;
    }
    ArmChallenge challenge{arm, *vs, control.collectives, side.collectives, std::nullopt, ""};
    challenge.configuration = configurationOf(side.decisions, &challenge.whyNoConfiguration);
    cf.challenges.push_back(std::move(challenge));
  }
  return cf;
}

void addThinNotes(const Thin& thin, const AbFitOptions& o, AbFit* fit) {
  for (const auto& [where, buckets] : thin.leftOut) {
    const auto& [arm, nodes, collective] = where;
    fit->notes.push_back("arm '" + arm + "' on " + std::to_string(nodes) + " nodes, " +
                         telemetry::collectiveName(collective) +
                         ": left out where the control or the arm has fewer than " +
                         std::to_string(o.settings.minUnits) + " communicators (control/arm): " + buckets);
  }
}

// What to collect: who has too few communicators, and how to get more. Weights only share out communicators: more
// weight for the arms that lack them is advice only while others have some to spare; when the control lacks as
// well, only time (more communicators) helps.
Status tooLittleEvidence(const Thin& thin, int mostControl, const AbFitOptions& o) {
  std::string arms, lacking, spare;
  for (const auto& [arm, most] : thin.mostPerArm) {
    arms += std::string(arms.empty() ? "arm '" : ", '") + arm + "' " + (arms.empty() ? "has " : "") + "at most " +
            std::to_string(most);
    std::string& list = most < o.settings.minUnits ? lacking : spare;
    list += (list.empty() ? "'" : ", '") + arm + "'";
  }
  if (arms.empty()) arms = "no arm has any";
  bool controlLacks = mostControl < o.settings.minUnits;
  std::string advice = "run the experiment longer (more communicators)";
  if (lacking.empty() && !controlLacks) {
    advice = "the arms and the control never reach it in the same bucket and node count: " + advice;
  } else if (!controlLacks) {
    advice += " or raise the weight of " + lacking + " (the control has communicators to spare)";
  } else if (lacking.empty()) {
    advice += " or raise the weight of the control '" + o.control + "' (the arms have communicators to spare)";
  } else {
    advice += ": the control '" + o.control + "' lacks them as well as " + lacking +
              ", so moving weight between them cannot help" +
              (spare.empty() ? "" : "; only " + spare + " could give up weight");
  }
  std::string needed = std::to_string(o.settings.minUnits);
  return Status(StatusCode::kFailedPrecondition,
                "too little evidence to fit a policy: " + arms + " communicators per size bucket and node count (the " +
                    "control '" + o.control + "' at most " + std::to_string(mostControl) + "); ab fit needs " + needed +
                    " of an arm and " + needed + " of the control in the same bucket, each with at least " +
                    std::to_string(o.minCollectives) + " collectives there: " + advice);
}

// The control arm's own rules: where the fitted policy has no rule NCCL decides, which is not what the control
// ran if its policy decided by rules. `control`: its decisions per (node count, cell).
void noteControlRules(const std::map<GroupKey, DecisionCounts>& control, AbFit* fit) {
  uint64_t calls = 0, byRules = 0;
  for (const CellFit& cf : fit->cells) {
    auto decided = control.find({cf.nodes, cf.cell});
    if (decided == control.end()) continue;
    for (const auto& [decision, n] : decided->second) {
      calls += n;
      if (decision.source == DecisionSource::kRule) byRules += n;
    }
  }
  if (byRules == 0) return;
  fit->notes.push_back(
      format("the control arm '%s' decided %.0f%% of its calls in the fitted buckets by its own "
             "policy's rules: where this policy has no rule NCCL decides, not that policy; put "
             "these rules ahead of the control policy's to keep both",
             fit->control.c_str(), 100.0 * static_cast<double>(byRules) / static_cast<double>(calls)));
}

std::map<GroupKey, DecisionCounts> controlDecisions(const Groups& groups, const std::string& control) {
  std::map<GroupKey, DecisionCounts> out;
  for (const auto& [key, arms] : groups) {
    auto side = arms.find(control);
    if (side != arms.end()) out[key] = side->second.decisions;
  }
  return out;
}

// Winners, across every challenge of the fit at once; notes on winners that cannot be written as rules.
void chooseWinners(const AbFitOptions& o, AbFit* fit) {
  std::vector<verdicts::Challenge> challenges;
  std::vector<std::pair<size_t, size_t>> at;  // (cell, challenge) of each
  for (size_t i = 0; i < fit->cells.size(); ++i) {
    for (size_t j = 0; j < fit->cells[i].challenges.size(); ++j) {
      challenges.push_back(verdicts::Challenge{i, fit->cells[i].challenges[j].vsControl});
      at.emplace_back(i, j);
    }
  }
  fit->challenges = static_cast<int>(challenges.size());
  std::vector<std::optional<size_t>> winners =
      verdicts::selectWinners(challenges, fit->cells.size(), o.settings, o.falseWinControl);
  for (size_t i = 0; i < winners.size(); ++i) {
    if (!winners[i]) continue;
    CellFit& cf = fit->cells[i];
    cf.winner = at[*winners[i]].second;
    const ArmChallenge& w = cf.challenges[*cf.winner];
    if (w.configuration) continue;
    fit->notes.push_back(format(
        "%s on %d nodes: arm '%s' beat the control (ratio %.3f) but what it ran there "
        "cannot be written as a rule (%s): no rule",
        describeCell(cf.cell).c_str(), cf.nodes, w.arm.c_str(), w.vsControl.ratio, w.whyNoConfiguration.c_str()));
  }
}

}  // namespace

StatusOr<AbFit> fitArms(const Fleet& fleet, const AbFitOptions& options) {
  AbFit fit;
  fit.experiment = fleet.experiment;
  fit.control = options.control;
  fit.options = options;
  fit.errors = fleet.errors;
  fit.skipped = fleet.skipped;
  fit.policyName =
      !options.policyName.empty() ? options.policyName : (fleet.experiment.empty() ? "ab" : fleet.experiment) + "-fit";
  fit.notes = fleet.notes;
  if (isSwitchbackFleet(fleet)) {
    fit.design = "switchback";
    Status cells = fitSwitchbackCells(fleet, options, &fit);
    if (!cells.isOk()) return cells;
    chooseWinners(options, &fit);
    noteControlRules(switchbackDecisions(fleet, fit.control), &fit);
    fit.rules = mergeRules(fit.cells);
    return fit;
  }
  ArmCensus census = censusOfArms(fleet, /*needNodeCount=*/true);
  fit.notes.insert(fit.notes.end(), census.notes.begin(), census.notes.end());
  fit.communicatorsPerArm = census.communicatorsPerArm;
  Status arms = checkArms(census, fit.control, "nothing to fit");
  if (!arms.isOk()) return arms;
  Groups groups = groupUnits(fleet, options.minCollectives);
  Thin thin;
  int mostControl = 0;
  for (const auto& [key, sides] : groups) {
    CellFit cf = challengesAt(key, sides, options, thin, &fit);
    mostControl = std::max(mostControl, cf.communicatorsControl);
    if (!cf.challenges.empty()) fit.cells.push_back(std::move(cf));
  }
  if (fit.cells.empty()) return tooLittleEvidence(thin, mostControl, options);
  addThinNotes(thin, options, &fit);
  chooseWinners(options, &fit);
  noteControlRules(controlDecisions(groups, fit.control), &fit);
  fit.rules = mergeRules(fit.cells);
  return fit;
}

}  // namespace nccl_roce::fleet

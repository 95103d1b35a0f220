#include "tests/calibration/ab_fit_simulation.h"

#include "fleet/fleet.h"

namespace nccl_roce::fleet::calibration {

namespace {

constexpr int kTree = 0, kRing = 1, kLL = 0, kSimple = 2;

// One fit's rules and buckets against the truth.
void judge(const AbFit& fit, const FleetSpec& spec, FitTally* t) {
  std::map<int, std::string> ruled;  // bucket -> arm of its rule
  for (const CellFit& cf : fit.cells) {
    if (cf.ruled()) ruled[bucketOfCell(cf.cell)] = cf.challenges[*cf.winner].arm;
  }
  int rules = 0, falseRules = 0;
  for (int bucket : spec.buckets) {
    std::string best = bestArm(spec, bucket);
    auto rule = ruled.find(bucket);
    if (rule != ruled.end()) {
      ++rules;
      falseRules += spec.effect(rule->second, bucket) >= 1.0;
    }
    if (best.empty()) {
      ++t->nullBuckets;
      t->nullRuled += rule != ruled.end();
    } else {
      ++t->gainBuckets;
      t->found += rule != ruled.end() && rule->second == best;
    }
  }
  t->rules += rules;
  t->falseRules += falseRules;
  t->fitsWithRules += rules > 0;
  if (rules > 0) t->falseShareSum += static_cast<double>(falseRules) / rules;
}

}  // namespace

const std::vector<ExploreArm>& exploreArms() {
  static const std::vector<ExploreArm> arms = {{"explore-ring-ll", "explore ring/ll", kRing, kLL},
                                               {"explore-ring-simple", "explore ring/simple", kRing, kSimple},
                                               {"explore-tree-ll", "explore tree/ll", kTree, kLL}};
  return arms;
}

FleetSpec explorationFleet(int perArm, int control, double gain) {
  FleetSpec spec;
  spec.collectivesPerBucket = 40;  // per rank, as the other fleet calibrations
  spec.communicatorsPerArm = {{"control", control}};
  for (const ExploreArm& arm : exploreArms()) spec.communicatorsPerArm[arm.name] = perArm;
  for (int bucket : {14, 15, 16}) spec.effects["explore-ring-ll"][bucket] = 1 - gain;
  for (int bucket : {17, 18}) spec.effects["explore-tree-ll"][bucket] = 1 - gain;
  for (int bucket : {24, 25}) spec.effects["explore-ring-simple"][bucket] = 1 - gain;
  spec.effects["explore-ring-ll"][19] = 1.05;
  spec.effects["explore-ring-simple"][20] = 1.04;
  spec.effects["explore-tree-ll"][22] = 1.05;
  return spec;
}

std::string bestArm(const FleetSpec& spec, int bucket) {
  std::string best;
  double fastest = 1.0;
  for (const auto& [arm, n] : spec.communicatorsPerArm) {
    if (spec.effect(arm, bucket) < fastest) {
      fastest = spec.effect(arm, bucket);
      best = arm;
    }
  }
  return best;
}

std::vector<CommunicatorRecord> simulateExploration(const FleetSpec& spec) {
  std::map<std::string, TunerDecision> decisionOf;
  decisionOf["control"] =
      TunerDecision{telemetry::Choice::of(kControlAlgorithm, kControlProtocol, 0), DecisionSource::kNccl, ""};
  for (const ExploreArm& arm : exploreArms()) {
    decisionOf[arm.name] =
        TunerDecision{telemetry::Choice::of(arm.algorithm, arm.protocol, 0), DecisionSource::kRule, arm.rule};
  }
  std::vector<CommunicatorRecord> records = simulateFleet(spec);
  for (CommunicatorRecord& r : records) {
    for (const auto& [cell, timings] : r.timings[TimingClock::kGpu]) {
      r.decisions[cell][decisionOf[r.arm]] += timings.count;
    }
  }
  return records;
}

std::vector<FitTally> runFits(FleetSpec spec, int fleets, uint64_t firstSeed,
                              const std::vector<AbFitOptions>& options) {
  std::vector<FitTally> tallies(options.size());
  for (int i = 0; i < fleets; ++i) {
    spec.seed = firstSeed + static_cast<uint64_t>(i);
    StatusOr<Fleet> fleet = assembleFleet(simulateExploration(spec), {});
    for (size_t o = 0; o < options.size(); ++o) {
      StatusOr<AbFit> fit = fleet.isOk() ? fitArms(*fleet, options[o]) : StatusOr<AbFit>(fleet.status());
      FitTally& t = tallies[o];
      ++t.fits;
      if (!fit.isOk()) {
        ++t.refused;
        continue;
      }
      judge(*fit, spec, &t);
    }
  }
  return tallies;
}

FitTally runFits(FleetSpec spec, int fleets, uint64_t firstSeed, const AbFitOptions& options) {
  return runFits(std::move(spec), fleets, firstSeed, std::vector<AbFitOptions>{options})[0];
}

}  // namespace nccl_roce::fleet::calibration

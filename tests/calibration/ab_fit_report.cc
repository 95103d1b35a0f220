// The tables behind `ab fit`'s minimum evidence (docs/ab-testing.md): simulated exploration fleets with a known
// best arm per bucket, fitted with the minimum lowered to each communicator count, for the power to find 5%, 8%
// and 10% gains and the rate of false rules; and null fleets with straggling collectives, by collectives per
// communicator (the minimum of collectives):
//   ab_fit_report [--trials N]     (default 200 fleets per cell of the table; deterministic seeds)
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "tests/calibration/ab_fit_simulation.h"

using namespace nccl_roce::fleet;
using namespace nccl_roce::fleet::calibration;

namespace {

double percent(int part, int whole) {
  return whole > 0 ? 100.0 * part / whole : 0;
}

void row(int perArm, int trials) {
  AbFitOptions options;
  options.settings.minUnits = perArm;
  const int control = 4 * perArm;
  FitTally all;
  double found[3] = {0, 0, 0};
  const double gains[3] = {0.05, 0.08, 0.10};
  for (int g = 0; g < 3; ++g) {
    FitTally t =
        runFits(explorationFleet(perArm, control, gains[g]), trials, 1 + 100000 * static_cast<uint64_t>(g), options);
    found[g] = percent(t.found, t.gainBuckets);
    all.fits += t.fits;
    all.rules += t.rules;
    all.falseRules += t.falseRules;
    all.falseShareSum += t.falseShareSum;
    all.nullBuckets += t.nullBuckets;
    all.nullRuled += t.nullRuled;
  }
  FitTally null = runFits(explorationFleet(perArm, control, 0.0), trials, 900000, options);
  std::printf("| %d (%d) | %.1f%% | %.1f%% | %.1f%% | %.2f%% (%d of %d) | %.2f%% | %.1f%% | %.1f%% |\n", perArm,
              control, found[0], found[1], found[2], 100 * all.falseDiscoveryRate(), all.falseRules, all.rules,
              percent(all.falseRules, all.rules), percent(all.nullRuled, all.nullBuckets),
              percent(null.fitsWithRules, null.fits));
  std::fflush(stdout);
}

// Null fleets with stragglers (2% of collectives 10x slow), 1 rank timing `collectives` per bucket: how often any rule
// is written at the minimum of communicators, with the chosen degrees of freedom and with Welch-Satterthwaite's.
void stragglersRow(int collectives, int trials) {
  FleetSpec spec = explorationFleet(kAbFitMinCommunicators, 4 * kAbFitMinCommunicators, 0.0);
  spec.ranks = 1;
  spec.collectivesPerBucket = collectives;
  spec.slowShare = 0.02;
  spec.slowFactor = 10;
  AbFitOptions chosen, before;
  chosen.minCollectives = before.minCollectives = static_cast<uint64_t>(collectives);
  before.settings.degreesOfFreedom = nccl_roce::verdicts::DegreesOfFreedom::kWelchSatterthwaite;
  std::vector<FitTally> t = runFits(spec, trials, 800000, {chosen, before});
  std::printf("| %d | %.1f%% | %.1f%% |\n", collectives, percent(t[0].fitsWithRules, t[0].fits),
              percent(t[1].fitsWithRules, t[1].fits));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Prints docs/ab-testing.md's table of the evidence ab fit needs: simulated exploration fleets with a "
      "known best arm per bucket, fitted at each minimum number of communicators"};
  int trials = 200;
  app.add_option("--trials", trials, "Simulated fleets per gain and row")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.footer("Exit status 0; 2 on a usage error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::printf(
      "Exploration fleets: 3 arms against a control with 4x their communicators, 13 buckets (7 with one arm "
      "faster by the gain, 6 with none), 2 ranks x 40 collectives per bucket; noise 5%% per communicator, "
      "2%% per bucket, 10%% per collective; 95%% confidence, 2%% minimum effect; %d fleets per gain.\n\n",
      trials);
  std::printf(
      "| communicators per arm (control) | 5%% gains found | 8%% found | 10%% found | false discovery rate "
      "(false rules) | share of rules false | null buckets with a rule | null fleets with any rule |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int perArm : {4, 6, 8, 10, 12, 16, 20, 24}) row(perArm, trials);
  std::printf(
      "\nNull fleets with stragglers (2%% of collectives 10 times slow), %d communicators per arm and %d of the "
      "control, 1 rank; %d fleets per row:\n\n",
      kAbFitMinCommunicators, 4 * kAbFitMinCommunicators, 2 * trials);
  std::printf(
      "| collectives per communicator and bucket | null fleets with any rule | with Welch-Satterthwaite's degrees "
      "of freedom |\n|---:|---:|---:|\n");
  for (int collectives : {10, 20, 40}) stragglersRow(collectives, 2 * trials);
  return 0;
}

// Switchback verdicts, calibrated on simulated fleets with a known truth (tests/calibration/switchback_simulation.h):
// with no effect, "faster" or "slower" come no more often than 1 - confidence per bucket and per summary, with 1, 2,
// 5 and 20 communicators, through load drift, correlated neighbours, stragglers and an asymmetric carry-over after
// each switch that the washout absorbs; intervals cover the truth at their nominal rate; without the washout the
// carry-over does cry wolf (so the simulation's carry-over is real); and at the same traffic a switchback finds
// an effect the per-communicator design cannot.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "fleet/ab_comparison.h"
#include "fleet/ab_fit.h"
#include "fleet/fleet.h"
#include "telemetry/switchback.h"
#include "tests/calibration/switchback_simulation.h"
#include "verdicts/experiment_plan.h"

namespace nccl_roce::fleet::calibration {
namespace {

// The most a rate observed over n trials may exceed p by before it is more than chance: 3 binomial sigmas.
double slack(double p, int n) {
  return 3 * std::sqrt(p * (1 - p) / n);
}

struct Tally {
  int cells = 0, falseCells = 0, summaries = 0, falseSummaries = 0, intervals = 0, covered = 0, found = 0;
  double cellRate() const { return cells ? static_cast<double>(falseCells) / cells : 0; }
  double summaryRate() const { return summaries ? static_cast<double>(falseSummaries) / summaries : 0; }
  double coverage() const { return intervals ? static_cast<double>(covered) / intervals : 1; }
};

bool differs(verdicts::Verdict v) {
  return v == verdicts::Verdict::kFaster || v == verdicts::Verdict::kSlower;
}

Tally run(SwitchbackSpec spec, int fleets) {
  Tally t;
  for (int i = 0; i < fleets; ++i) {
    spec.seed = 7000 + static_cast<uint64_t>(i);
    StatusOr<Fleet> fleet = assembleFleet(simulateSwitchbackFleet(spec), {});
    StatusOr<AbReport> report = fleet.isOk() ? compareArms(*fleet, AbOptions{}) : fleet.status();
    if (!report.isOk()) continue;  // a per-communicator fleet of one communicator has no second arm
    for (const ArmComparison& c : report->comparisons) {
      for (const verdicts::CellComparison& cell : c.cells.cells) {
        ++t.cells;
        t.falseCells += spec.candidateEffect == 1.0 && differs(cell.verdict);
        t.found += spec.candidateEffect > 1.0 && cell.verdict == verdicts::Verdict::kSlower;
        if (!cell.interval) continue;
        ++t.intervals;
        t.covered += cell.interval->low <= spec.candidateEffect && spec.candidateEffect <= cell.interval->high;
      }
      ++t.summaries;
      t.falseSummaries += spec.candidateEffect == 1.0 && differs(c.summary.verdict);
    }
  }
  return t;
}

void print(const char* what, const Tally& t) {
  std::printf(
      "%s: false verdicts %d of %d buckets (%.1f%%), %d of %d summaries (%.1f%%), effect found in %d buckets, "
      "coverage %.1f%% of %d\n",
      what, t.falseCells, t.cells, 100 * t.cellRate(), t.falseSummaries, t.summaries, 100 * t.summaryRate(), t.found,
      100 * t.coverage(), t.intervals);
}

class AnAaSwitchback : public ::testing::TestWithParam<int> {};

TEST_P(AnAaSwitchback, CriesWolfNoMoreThanTheConfidenceAllows) {
  SwitchbackSpec spec;
  spec.communicators = GetParam();
  const int fleets = spec.communicators >= 20 ? 60 : spec.communicators >= 5 ? 150 : 300;
  Tally t = run(spec, fleets);
  print(("A/A, " + std::to_string(spec.communicators) + " communicator(s)").c_str(), t);
  ASSERT_GT(t.cells, 0);
  EXPECT_LE(t.cellRate(), 0.05 + slack(0.05, t.cells)) << t.falseCells;
  EXPECT_LE(t.summaryRate(), 0.05 + slack(0.05, t.summaries)) << t.falseSummaries;
  EXPECT_GE(t.coverage(), 0.95 - slack(0.05, t.intervals));
}

INSTANTIATE_TEST_SUITE_P(Communicators, AnAaSwitchback, ::testing::Values(1, 2, 5, 20));

// The candidate pays 30% on its first two collectives of a bucket after each switch into it. Washed out (the
// default of 2), that is no verdict; kept (washout 0), it reads as a slower candidate.
TEST(SwitchbackCalibration, TheWashoutAbsorbsAnAsymmetricCarryOver) {
  SwitchbackSpec spec;
  spec.communicators = 2;
  spec.carryOver = 0.3;
  spec.washout = 0;
  Tally kept = run(spec, 60);
  print("A/A with its carry-over kept (washout 0)", kept);
  EXPECT_GT(kept.cellRate(), 0.5) << "the simulated carry-over is large enough to matter";
}

TEST(SwitchbackCalibration, AnEffectIsFoundAndCoveredInsideOneCommunicator) {
  SwitchbackSpec spec;
  spec.candidateEffect = 1.05;
  Tally t = run(spec, 100);
  print("5% slower, 1 communicator", t);
  EXPECT_GE(static_cast<double>(t.found) / t.cells, 0.8) << "found in most buckets";
  EXPECT_GE(t.coverage(), 0.95 - slack(0.05, t.intervals));
}

// The same traffic (communicators x collectives) in both designs: the per-communicator design must see through
// the communicators' placement (5% between them); a switchback cancels it inside each communicator.
TEST(SwitchbackCalibration, AtTheSameTrafficASwitchbackFindsWhatThePerCommunicatorDesignCannot) {
  SwitchbackSpec spec;
  spec.communicators = 20;
  spec.candidateEffect = 1.02;
  Tally switchback = run(spec, 40);
  spec.switchback = false;
  Tally perCommunicator = run(spec, 40);
  print("2% slower, 20 communicators, switchback", switchback);
  print("2% slower, 20 communicators, per communicator", perCommunicator);
  double found = static_cast<double>(switchback.found) / switchback.cells;
  double foundBefore = static_cast<double>(perCommunicator.found) / perCommunicator.cells;
  EXPECT_GE(found, 0.9);
  EXPECT_LT(foundBefore, found / 2);
}

// `ab fit` on one pod's switchback: one communicator, two ranks, a control and three arms (the candidate and two
// generated by [experiment.explore]) taking turns.
StatusOr<AbFit> fitPod(SwitchbackSpec spec, uint64_t seed, AbFitOptions options = {}) {
  spec.seed = seed;
  StatusOr<Fleet> fleet = assembleFleet(simulateSwitchbackFleet(spec), {});
  if (!fleet.isOk()) return fleet.status();
  return fitArms(*fleet, options);
}

SwitchbackSpec fourArms() {
  SwitchbackSpec spec;
  spec.arms = 4;
  spec.collectives = 16000;
  return spec;
}

// With no arm faster anywhere, the fit writes a rule at most as often as its false discovery rate allows (with no
// real gain, every rule is false, so the rate bounds the chance of any rule), even with no minimum effect; without
// that control (each of the 12 challenges alone at 95%) it writes one far more often, so the bound can fail.
TEST(SwitchbackFit, OnePodWithoutAGainWritesNoRuleBeyondTheFalseDiscoveryRate) {
  const int pods = 150;
  int withRules = 0, withRulesUncontrolled = 0, challenges = 0;
  AbFitOptions controlled;  // the minimum effect off: only the false-win control keeps rules away
  controlled.settings.minEffect = 0;
  AbFitOptions uncontrolled = controlled;
  uncontrolled.falseWinControl = verdicts::FalseWinControl::kNone;
  for (int i = 0; i < pods; ++i) {
    StatusOr<AbFit> fit = fitPod(fourArms(), 9000 + static_cast<uint64_t>(i), controlled);
    ASSERT_TRUE(fit.isOk()) << fit.status().message();
    withRules += !fit->rules.empty();
    challenges += fit->challenges;
    StatusOr<AbFit> loose = fitPod(fourArms(), 9000 + static_cast<uint64_t>(i), uncontrolled);
    ASSERT_TRUE(loose.isOk()) << loose.status().message();
    withRulesUncontrolled += !loose->rules.empty();
  }
  std::printf("A/A/A/A, one pod: a rule in %d of %d fits (%d challenges); %d without false-win control\n", withRules,
              pods, challenges, withRulesUncontrolled);
  EXPECT_EQ(challenges, pods * 3 * 4) << "every arm challenged in every bucket from one pod";
  EXPECT_LE(withRules, pods * (0.05 + slack(0.05, pods)));
  EXPECT_GT(withRulesUncontrolled, pods * (0.05 + slack(0.05, pods)));
}

// The truth: "explore tree/ll" 6% faster at 64K-256K, "explore ring/simple" 6% faster at 512K-1M, the candidate
// nowhere. One pod's windows fit those two rules (neighbouring buckets merged) and nothing else.
TEST(SwitchbackFit, OnePodsWindowsFitTheArmThatIsFasterInEachBucket) {
  SwitchbackSpec spec = fourArms();
  spec.effects = {{}, {1, 1, 1, 1}, {0.94, 0.94, 1, 1}, {1, 1, 1, 0.94}};
  int exact = 0;
  const int pods = 20;
  for (int i = 0; i < pods; ++i) {
    StatusOr<AbFit> fit = fitPod(spec, 300 + static_cast<uint64_t>(i));
    ASSERT_TRUE(fit.isOk()) << fit.status().message();
    EXPECT_EQ(fit->design, "switchback");
    std::vector<std::string> rules;
    for (const FittedRule& r : fit->rules) {
      rules.push_back(r.arm + " " + std::to_string(r.firstBucket) + ".." + std::to_string(r.lastBucket) + " " +
                      r.configuration.describe());
    }
    exact +=
        rules == std::vector<std::string>{"explore tree/ll 16..17 Tree/LL", "explore ring/simple 19..19 Ring/Simple"};
  }
  std::printf("6%% faster arms in 3 of 4 buckets, one pod: the exact rules in %d of %d fits\n", exact, pods);
  EXPECT_GE(exact, pods * 9 / 10);
}

// `nccl-roce ab plan`'s predictions (verdicts/experiment_plan.h) against simulated fleets at the same traffic: per
// communicator 4 buckets, one collective each in turn, so 1 collective/s in the bucket and 4 timed; steady load
// and independent neighbours, as the plan assumes. The found rate is the share of buckets with a "slower"
// verdict; the plan's power must be within sampling error of it, in both designs. Printed, it is the power table
// of docs/ab-testing.md ("Planning an experiment").
struct PowerCase {
  bool switchback;
  int communicators;
  double effect;
};

class PlannedPower : public ::testing::TestWithParam<PowerCase> {};

TEST_P(PlannedPower, IsWhatSimulatedFleetsShow) {
  const PowerCase c = GetParam();
  SwitchbackSpec spec;
  spec.switchback = c.switchback;
  spec.communicators = c.communicators;
  spec.candidateEffect = 1 + c.effect;
  spec.autocorrelation = spec.drift = spec.stragglerRate = spec.carryOver = 0;
  verdicts::PlanInputs plan;
  plan.effect = c.effect;
  plan.communicators = c.communicators;
  plan.collectivesPerSecond = 1;
  plan.timedPerSecond = spec.buckets;
  plan.noise = spec.noise;
  plan.betweenCommunicators = spec.betweenCommunicators;
  plan.window = telemetry::switchbackWindow(spec.block, 2);
  plan.kept = 1 - 0.75 * spec.washout / (spec.block / static_cast<double>(spec.buckets));  // 2 arms switch 3/4
  const double seconds = static_cast<double>(spec.collectives) / spec.buckets;
  const double predicted =
      c.switchback ? verdicts::switchbackPower(plan, seconds) : verdicts::perCommunicatorPower(plan, seconds);
  const int fleets = 60;
  Tally t = run(spec, fleets);
  ASSERT_GT(t.cells, 0);
  const double found = static_cast<double>(t.found) / t.cells;
  std::printf("%-16s %2d communicator(s), %.1f%% slower, %llu collectives each: plan %.2f, simulated %.2f\n",
              c.switchback ? "switchback" : "per communicator", c.communicators, c.effect * 100,
              static_cast<unsigned long long>(spec.collectives), predicted, found);
  EXPECT_NEAR(found, predicted, 0.15);
}

INSTANTIATE_TEST_SUITE_P(Designs, PlannedPower,
                         ::testing::Values(PowerCase{true, 1, 0.015}, PowerCase{true, 1, 0.025},
                                           PowerCase{true, 2, 0.015}, PowerCase{false, 20, 0.05},
                                           PowerCase{false, 20, 0.025}));

}  // namespace
}  // namespace nccl_roce::fleet::calibration

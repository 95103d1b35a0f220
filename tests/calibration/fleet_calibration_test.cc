// `nccl-roce ab`'s verdicts, calibrated on simulated fleets with a known truth: with no effect, "faster" or
// "slower" come no more often than 1 - confidence (per bucket and per summary) at every split of communicators a
// rollout makes, and the bound is tight enough to catch the method before; intervals cover the true ratio at
// least at their nominal rate; a real effect in some buckets is found there and only there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <utility>

#include "fleet/ab_comparison.h"
#include "fleet/fleet.h"
#include "tests/calibration/fleet_simulation.h"

namespace nccl_roce::fleet::calibration {
namespace {

// The most a rate observed over n trials may exceed p by before it is more than chance: 3 binomial sigmas.
double slack(double p, int n) {
  return 3 * std::sqrt(p * (1 - p) / n);
}

struct Tally {
  int cells = 0, nullCells = 0, falseCells = 0, summaries = 0, falseSummaries = 0, covered = 0, intervals = 0;
  std::map<int, int> faster;  // per bucket
};

Tally run(FleetSpec spec, int fleets, double minEffect) {
  Tally t;
  AbOptions options;
  options.settings.minEffect = minEffect;
  for (int i = 0; i < fleets; ++i) {
    spec.seed = 1000 + static_cast<uint64_t>(i);
    StatusOr<Fleet> fleet = assembleFleet(simulateFleet(spec), {});
    StatusOr<AbReport> report = compareArms(*fleet, options);
    EXPECT_TRUE(report.isOk()) << report.status().toString();
    if (!report.isOk()) return t;
    for (const ArmComparison& c : report->comparisons) {
      for (const verdicts::CellComparison& cell : c.cells.cells) {
        int bucket = bucketOfCell(cell.cell);
        double truth = spec.effect(c.arm, bucket);
        bool differs = cell.verdict == verdicts::Verdict::kFaster || cell.verdict == verdicts::Verdict::kSlower;
        ++t.cells;
        t.nullCells += truth == 1.0;
        if (truth == 1.0 && differs) ++t.falseCells;
        if (cell.verdict == verdicts::Verdict::kFaster) ++t.faster[bucket];
        if (cell.interval) {
          ++t.intervals;
          t.covered += cell.interval->low <= truth && truth <= cell.interval->high;
        }
      }
      if (spec.effects.count(c.arm) != 0) continue;  // a summary over real effects has no false verdict to count
      ++t.summaries;
      t.falseSummaries +=
          c.summary.verdict == verdicts::Verdict::kFaster || c.summary.verdict == verdicts::Verdict::kSlower;
    }
  }
  return t;
}

// The measured rates, printed for docs/ab-testing.md.
void print(const char* what, const Tally& t) {
  std::printf(
      "%s: false verdicts in %d of %d buckets without an effect (%.1f%%), false summaries %d of %d, coverage %.1f%%\n",
      what, t.falseCells, t.nullCells, 100.0 * t.falseCells / t.nullCells, t.falseSummaries, t.summaries,
      100.0 * t.covered / t.intervals);
}

TEST(FleetCalibration, AnAATestCriesWolfNoMoreThanTheConfidenceAllows) {
  FleetSpec spec;
  spec.collectivesPerBucket = 40;
  const int fleets = 150;
  Tally t = run(spec, fleets, /*minEffect=*/0.0);
  ASSERT_EQ(t.cells, fleets * 13);
  print("A/A, 20 + 20 communicators", t);
  EXPECT_LE(static_cast<double>(t.falseCells) / t.cells, 0.05 + slack(0.05, t.cells)) << t.falseCells;
  EXPECT_LE(static_cast<double>(t.falseSummaries) / t.summaries, 0.05 + slack(0.05, t.summaries)) << t.falseSummaries;
  EXPECT_GE(static_cast<double>(t.covered) / t.intervals, 0.95 - slack(0.05, t.intervals));
}

TEST(FleetCalibration, HeavyTailedCollectivesAndUnevenArmsKeepTheRate) {
  FleetSpec spec;
  spec.communicatorsPerArm = {{"control", 30}, {"candidate", 6}};  // a 5% exploration arm beside its control
  spec.heavyTails = true;
  spec.collectivesPerBucket = 40;
  const int fleets = 150;
  Tally t = run(spec, fleets, /*minEffect=*/0.0);
  print("A/A, 30 + 6 communicators, heavy-tailed", t);
  EXPECT_LE(static_cast<double>(t.falseCells) / t.cells, 0.05 + slack(0.05, t.cells)) << t.falseCells;
  EXPECT_LE(static_cast<double>(t.falseSummaries) / t.summaries, 0.05 + slack(0.05, t.summaries));
}

TEST(FleetCalibration, AnEffectInSomeBucketsIsFoundThereAndOnlyThere) {
  FleetSpec spec;
  spec.collectivesPerBucket = 40;
  for (int bucket : {14, 15, 16, 17}) spec.effects["candidate"][bucket] = 0.93;  // 7% faster below 256K
  const int fleets = 100;
  Tally t = run(spec, fleets, /*minEffect=*/0.01);
  std::printf("7%% effect below 256K: found (faster) in %d, %d, %d, %d of %d fleets\n", t.faster[14], t.faster[15],
              t.faster[16], t.faster[17], fleets);
  print("7% effect in 4 of 13 buckets (false verdicts: in the other 9)", t);
  for (int bucket : {14, 15, 16, 17}) EXPECT_GE(t.faster[bucket], fleets * 8 / 10) << "power at bucket " << bucket;
  ASSERT_EQ(t.nullCells, fleets * 9);
  EXPECT_LE(static_cast<double>(t.falseCells) / t.nullCells, 0.05 + slack(0.05, t.nullCells)) << t.falseCells;
  EXPECT_GE(static_cast<double>(t.covered) / t.intervals, 0.95 - slack(0.05, t.intervals));
}

// A/A at the splits real rollouts make: a canary of 2, 3 or 5 communicators beside a control of 30 or 40, and a
// balanced 10 against 10. Heavy-tailed collectives, 1 rank x 10 collectives per bucket: the rates are decided by
// the communicator-level noise, which is the report's. With 5 against 40, some communicators missed a bucket (each
// ran 95% of them), so the summary, over the communicators that measured every bucket, keeps fewer of them: its
// verdicts must hold on what is left, or it must say it has too few.
//
// Each bound is the nominal rate plus three binomial standard deviations over the fleets (a fleet's buckets share
// its communicators, so they are not independent trials). The same fleets compared by the method before
// (Welch-Satterthwaite's degrees of freedom) exceed it where that method was liberal; where it was within its rate
// (5 against 40, 10 against 10), the method before at twice its alpha does: either way a method at about twice the
// nominal rate fails the bound.
struct Split {
  int control, canary;
  double measuredShare;
  bool methodBeforeIsLiberal;  // else it is shown at twice its alpha
  int fleets;                  // enough for the bound to tell the method before from nominal
};

void PrintTo(const Split& s, std::ostream* out) {
  *out << s.canary << " beside " << s.control;
}

struct AaRates {
  int fleets = 0;
  long buckets = 0, falseBuckets = 0;
  int summaries = 0, falseSummaries = 0, insufficientSummaries = 0;
  double bucketRate() const { return buckets ? static_cast<double>(falseBuckets) / buckets : 0; }
  double summaryRate() const { return fleets ? static_cast<double>(falseSummaries) / fleets : 0; }
};

bool isVerdict(verdicts::Verdict v) {
  return v == verdicts::Verdict::kFaster || v == verdicts::Verdict::kSlower;
}

void count(const AbReport& report, AaRates& r) {
  ++r.fleets;
  for (const ArmComparison& c : report.comparisons) {
    for (const verdicts::CellComparison& cell : c.cells.cells) {
      ++r.buckets;
      r.falseBuckets += isVerdict(cell.verdict);
    }
    ++r.summaries;
    r.falseSummaries += isVerdict(c.summary.verdict);
    r.insufficientSummaries += c.summary.verdict == verdicts::Verdict::kInsufficient;
  }
}

class ACanaryBesideItsControl : public ::testing::TestWithParam<Split> {};

TEST_P(ACanaryBesideItsControl, GetsFalseVerdictsAtMostAtTheNominalRateAndTheBoundCatchesTheMethodBefore) {
  const Split split = GetParam();
  FleetSpec spec;
  spec.communicatorsPerArm = {{"control", split.control}, {"candidate", split.canary}};
  spec.ranks = 1;
  spec.collectivesPerBucket = 10;
  spec.heavyTails = true;
  spec.measuredShare = split.measuredShare;
  AbOptions method, before;
  method.settings.minEffect = before.settings.minEffect = 0;
  before.settings.degreesOfFreedom = verdicts::DegreesOfFreedom::kWelchSatterthwaite;
  if (!split.methodBeforeIsLiberal) before.settings.confidence = 0.90;
  const int fleets = split.fleets;
  AaRates rates, ratesBefore;
  for (int i = 0; i < fleets; ++i) {
    spec.seed = 20000 + static_cast<uint64_t>(i);
    StatusOr<Fleet> fleet = assembleFleet(simulateFleet(spec), {});
    ASSERT_TRUE(fleet.isOk());
    for (auto [options, into] : {std::pair{&method, &rates}, std::pair{&before, &ratesBefore}}) {
      StatusOr<AbReport> report = compareArms(*fleet, *options);
      ASSERT_TRUE(report.isOk()) << report.status().toString();
      count(*report, *into);
    }
  }
  const double bound = 0.05 + slack(0.05, fleets);
  std::printf(
      "A/A %d + %d (%.0f%% of buckets measured): false buckets %.2f%%, summaries %.2f%% (%d without a verdict: "
      "too few communicators measured every bucket); method before%s: %.2f%%, %.2f%%; bound %.2f%%\n",
      split.control, split.canary, split.measuredShare * 100, 100 * rates.bucketRate(), 100 * rates.summaryRate(),
      rates.insufficientSummaries, split.methodBeforeIsLiberal ? "" : " at twice its alpha",
      100 * ratesBefore.bucketRate(), 100 * ratesBefore.summaryRate(), 100 * bound);
  EXPECT_LE(rates.bucketRate(), bound);
  EXPECT_LE(rates.summaryRate(), bound);
  EXPECT_TRUE(ratesBefore.bucketRate() > bound || ratesBefore.summaryRate() > bound)
      << "a bound the method before passes cannot tell it from this one";
}

INSTANTIATE_TEST_SUITE_P(Splits, ACanaryBesideItsControl,
                         ::testing::Values(Split{30, 2, 1.0, true, 400}, Split{30, 3, 1.0, true, 1200},
                                           Split{40, 5, 0.95, false, 400}, Split{10, 10, 1.0, false, 400}),
                         [](const auto& param) {
                           return std::to_string(param.param.canary) + "_beside_" + std::to_string(param.param.control);
                         });

}  // namespace
}  // namespace nccl_roce::fleet::calibration

// `nccl-roce ab`'s verdicts, calibrated on simulated fleets with a known truth: with no effect, "faster" or
// "slower" come no more often than 1 - confidence (per bucket and per summary); intervals cover the true
// ratio at least at their nominal rate; a real effect in some buckets is found there and only there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "fleet/ab_comparison.h"
#include "fleet/fleet.h"
#include "tests/calibration/fleet_simulation.h"

namespace nccl_roce::fleet::calibration {
namespace {

// The most a rate observed over n trials may exceed p by before it is more than chance: 3 binomial sigmas.
double slack(double p, int n) { return 3 * std::sqrt(p * (1 - p) / n); }

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
      t.falseSummaries += c.summary.verdict == verdicts::Verdict::kFaster || c.summary.verdict == verdicts::Verdict::kSlower;
    }
  }
  return t;
}

// The measured rates, printed for docs/ab-testing.md.
void print(const char* what, const Tally& t) {
  std::printf("%s: false verdicts in %d of %d buckets without an effect (%.1f%%), false summaries %d of %d, coverage %.1f%%\n",
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

}  // namespace
}  // namespace nccl_roce::fleet::calibration

// Switchback verdicts on vLLM's CUDA-graph decode (tests/calibration/capture_simulation.h), calibrated with a known
// truth: 67 graphs captured largest first, replays whose arm capture fixed, eager prefills, drift and correlated
// noise, and position effects inside the graphs. Judged by the unit the schedule drew (capture rounds), an A/A
// says "faster" or "slower" no more often than 1 - confidence per bucket and per summary, whatever the positions
// do, and its intervals cover; judged by windows that hold the replays (the method before), the same data cries
// wolf far beyond that (so these bounds can fail). A 5% slower arm is found from one communicator where its
// buckets hold several graphs, and from two where they hold one; a block that leaves a graph too few rounds gives
// "insufficient data", never a verdict. The long version, with the figures docs/statistics.md gives:
// build/tests/calibration/capture_report (docs/statistics.md, "Collectives replayed from CUDA graphs").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "telemetry/size_bucket.h"
#include "tests/calibration/capture_simulation.h"
#include "verdicts/capture_plan.h"

namespace nccl_roce::fleet::calibration {
namespace {

double slack(double p, int n) {
  return 3 * std::sqrt(p * (1 - p) / n);
}

// Short runs: a bucket's units do not grow with the steps, only their noise shrinks.
CaptureSpec quick() {
  CaptureSpec s;
  s.steps = 3000;
  s.seed = 500;
  return s;
}

// Every position effect the simulation knows, several that docs/statistics.md does not list among them.
CaptureSpec everyPositionEffect(CaptureSpec s) {
  s.stepSkew = 2.0;
  s.mlpFactor = 1.1;
  s.periodicLoad = 0.03;
  s.everyNthFactor = 1.05;
  s.everyNth = 3;
  s.trend = 0.05;
  s.positionNoise = 0.02;
  return s;
}

bool oneGraph(int bucket) {
  return bucket <= 17 || bucket == 23;  // batch 1, 2, 4, 8 and 512 sit alone in their size buckets
}

void print(const char* what, const CaptureTally& t) {
  std::printf("%s: %d of %d buckets called (%.1f%%), %d of %d summaries, coverage %.1f%%\n", what, t.calls(), t.cells(),
              100 * t.callRate(), t.summarySlower + t.summaryFaster, t.summaries, 100 * t.coverage());
}

TEST(CaptureCalibration, AnAaJudgedByCaptureRoundsCriesWolfNoMoreThanTheConfidenceAllows) {
  CaptureTally t = tallyCaptureTrials(everyPositionEffect(quick()), 24);
  print("A/A, capture rounds, every position effect", t);
  ASSERT_GT(t.cells(), 200);
  EXPECT_LE(t.callRate(), 0.05 + slack(0.05, t.cells()));
  EXPECT_LE(t.summaryCallRate(), 0.05 + slack(0.05, t.summaries));
  EXPECT_GE(t.coverage(), 0.95 - slack(0.05, t.cells()));
}

TEST(CaptureCalibration, WindowsThatHoldReplaysCryWolfOnTheSameData) {
  CaptureSpec before = quick();
  before.tellCaptures = false;  // as a profiler that cannot tell replays apart records them
  before.block = 16;
  before.stepSkew = 2.0;
  CaptureTally t = tallyCaptureTrials(before, 12);
  print("A/A, windows holding replays, block 16, first all-reduce 2x", t);
  EXPECT_GT(t.callRate(), 0.05 + slack(0.05, t.cells())) << "the bound above can fail";
}

TEST(CaptureCalibration, FortyLayersAndTheEmbeddingsAllReduceHoldToo) {
  CaptureSpec s = everyPositionEffect(quick());
  s.layers = 40;
  s.embedding = true;
  CaptureTally t = tallyCaptureTrials(s, 12);
  print("A/A, 81 all-reduces per graph", t);
  EXPECT_LE(t.callRate(), 0.05 + slack(0.05, t.cells()));
  EXPECT_LE(t.summaryCallRate(), 0.05 + slack(0.05, t.summaries));
}

TEST(CaptureCalibration, TheWashoutKeepsCarryOverFromCryingWolf) {
  CaptureSpec s = quick();
  s.washout = 0;  // the candidate's first two collectives after a switch are 30% slower, and nothing drops them
  CaptureTally t = tallyCaptureTrials(s, 6);
  EXPECT_GT(t.callRate(), 0.5) << "the simulated carry-over is real";
}

// The position effects: the first all-reduce of a step twice as long, the MLP's 10% slower.
TEST(CaptureCalibration, AFivePercentSlowerArmIsFoundWhereTheUnitsAllowIt) {
  CaptureSpec s = quick();
  s.stepSkew = 2.0;
  s.mlpFactor = 1.1;
  s.candidateEffect = 1.05;
  CaptureTally one = tallyCaptureTrials(s, 10);
  int several = 0, severalFound = 0;
  for (const auto& [bucket, b] : one.buckets) {
    if (oneGraph(bucket)) continue;
    several += b.verdicts;
    severalFound += b.slower;
  }
  EXPECT_GE(severalFound, several * 8 / 10) << "one communicator, buckets of several graphs";
  for (const auto& [bucket, b] : one.buckets) EXPECT_EQ(b.faster, 0) << "never the wrong way, bucket " << bucket;
  s.communicators = 2;
  CaptureTally two = tallyCaptureTrials(s, 6);
  int single = 0, singleFound = 0;
  for (const auto& [bucket, b] : two.buckets) {
    if (!oneGraph(bucket)) continue;
    single += b.verdicts;
    singleFound += b.slower;
  }
  EXPECT_GE(singleFound, single * 6 / 10) << "two communicators, buckets of one graph";
}

TEST(CaptureCalibration, ABlockThatLeavesAGraphTooFewRoundsGivesNoVerdictThere) {
  CaptureSpec s = everyPositionEffect(quick());
  s.block = 16;  // two rounds per graph of 64 all-reduces
  s.candidateEffect = 1.05;
  CaptureTally t = tallyCaptureTrials(s, 4);
  for (const auto& [bucket, b] : t.buckets) {
    if (oneGraph(bucket)) {
      EXPECT_EQ(b.insufficient, b.verdicts) << "bucket " << bucket;
    }
  }
  s.block = 64;  // a whole graph, and so a whole batch size, on one arm
  CaptureTally whole = tallyCaptureTrials(s, 2);
  for (const auto& [bucket, b] : whole.buckets) {
    EXPECT_EQ(b.insufficient, b.verdicts) << "bucket " << bucket << ": arm and batch size are confounded";
  }
}

// `nccl-roce ab plan --graphs` says where a verdict will come (verdicts/capture_plan.h): with 40 layers and the
// embedding's all-reduce, the first all-reduce's slow position is kept in one round of the smallest buckets, and
// their verdict comes exactly when that round's draw puts it on the candidate: half the time; elsewhere always. The
// runs come in mirrored pairs, as the plan's draws do, so both measure that coin without its spread over a few
// runs, and agree within 0.05 (capture_report --plan has the full table, 400 runs a row).
TEST(CaptureCalibration, ThePlanSaysWhereTheVerdictComes) {
  CaptureSpec s = quick();
  s.steps = 6000;
  s.layers = 40;
  s.embedding = true;
  s.stepSkew = 2.0;
  s.mlpFactor = 1.1;
  s.candidateEffect = 1.05;
  verdicts::CapturePlanInputs in;
  in.layout.perGraph = 81;
  in.layout.callsBefore = 81;
  in.layout.block = s.block;
  in.layout.washout = s.washout;
  for (auto b = s.batchSizes.rbegin(); b != s.batchSizes.rend(); ++b) {
    in.layout.graphBuckets.push_back(telemetry::sizeBucket(static_cast<uint64_t>(*b) * 16384));
  }
  in.positionEffects.assign(81, 0.0);
  in.positionEffects[0] = std::log(2.0);
  for (int p = 2; p < 81; p += 2) in.positionEffects[static_cast<size_t>(p)] = std::log(1.1);
  in.draws = 200;
  std::map<int, double> planned;
  for (const verdicts::BucketPlan& p : verdicts::planCaptures(in)) planned[p.bucket] = p.power;
  CaptureTally t = tallyCaptureTrials(s, 12, /*mirroredPairs=*/true);
  // Pooled by what the plan says (a bucket's 12 runs alone resolve no finer than 1/12): the buckets of even odds,
  // the rest.
  double half = 0, halfFound = 0, halfPlanned = 0, sure = 0, sureFound = 0, surePlanned = 0;
  for (const auto& [bucket, b] : t.buckets) {
    ASSERT_GE(b.verdicts, 8) << bucket << ": a bucket the wandering batch size seldom reaches in a short run";
    std::printf("bucket %d: planned %.2f, found in %d of %d runs\n", bucket, planned[bucket], b.slower, b.verdicts);
    const bool even = planned[bucket] < 0.95;
    EXPECT_TRUE(planned[bucket] > 0.95 || (planned[bucket] > 0.45 && planned[bucket] < 0.55)) << bucket;
    (even ? half : sure) += b.verdicts;
    (even ? halfFound : sureFound) += b.slower;
    (even ? halfPlanned : surePlanned) += planned[bucket] * b.verdicts;
  }
  ASSERT_EQ(t.buckets.size(), 10u);
  ASSERT_GT(half, 0) << "batch 1's and 2's buckets, where the plan gives even odds";
  EXPECT_NEAR(halfFound / half, halfPlanned / half, 0.05);
  EXPECT_NEAR(sureFound / sure, surePlanned / sure, 0.05);
}

}  // namespace
}  // namespace nccl_roce::fleet::calibration

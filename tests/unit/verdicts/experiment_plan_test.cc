// What `nccl-roce ab plan` tells an operator (verdicts/experiment_plan.h): the t test's power as textbooks give it,
// time to a verdict that shrinks with traffic, and a per-communicator design that no amount of time rescues when
// its communicators are too few, saying how many it needs.
#include "verdicts/experiment_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "verdicts/capture_plan.h"

namespace nccl_roce::verdicts {
namespace {

TEST(PowerOfT, MatchesTheNormalApproximationWithManyDegreesOfFreedom) {
  // 1.96 + 0.84 standard errors away: the classic 80% at 95% confidence.
  EXPECT_NEAR(powerOfT(2.8, 1.0, 100000, 0.95), 0.80, 0.005);
  EXPECT_NEAR(powerOfT(-2.8, 1.0, 100000, 0.95), 0.80, 0.005) << "either direction";
  EXPECT_NEAR(powerOfT(0, 1.0, 100000, 0.95), 0.025, 0.001) << "no effect: the one side's false rate";
}

TEST(PowerOfT, FewDegreesOfFreedomCostPower) {
  EXPECT_LT(powerOfT(2.8, 1.0, 3, 0.95), powerOfT(2.8, 1.0, 30, 0.95));
  EXPECT_EQ(powerOfT(2.8, 1.0, 0, 0.95), 0) << "no spread can be estimated from one unit";
  EXPECT_EQ(powerOfT(1e9, 1.0, 10, 0.95), 1) << "a certain verdict, without the series failing";
}

PlanInputs onePod() {
  PlanInputs in;
  in.collectivesPerSecond = in.timedPerSecond = 640;  // a decode loop's all-reduces, one bucket
  in.window = 128;
  in.kept = 0.625;
  return in;
}

TEST(ExperimentPlan, ASwitchbackNeedsLessTimeWithMoreTrafficOrALargerEffect) {
  PlanInputs in = onePod();
  in.effect = 0.02;
  DesignPlan base = planSwitchback(in);
  ASSERT_TRUE(base.feasible) << base.why;
  EXPECT_GE(base.units, 2);
  in.communicators = 4;
  EXPECT_LT(planSwitchback(in).seconds, base.seconds);
  in.communicators = 1;
  in.effect = 0.05;
  EXPECT_LT(planSwitchback(in).seconds, base.seconds);
  in.effect = 0.02;
  EXPECT_GE(switchbackPower(in, base.seconds), 0.8 - 1e-9) << "the time planned gives the power asked";
  EXPECT_LT(switchbackPower(in, base.seconds / 2), 0.8) << "and half of it does not";
}

TEST(ExperimentPlan, TooFewCommunicatorsNeverGiveAPerCommunicatorVerdictAndTheMessageSaysHowMany) {
  PlanInputs in = onePod();
  in.communicators = 4;
  DesignPlan p = planPerCommunicator(in);
  EXPECT_FALSE(p.feasible);
  EXPECT_THAT(p.why, ::testing::HasSubstr("never with 4 communicators (2 in the smallest arm)"));
  // The communicators it names are enough, and one fewer is not.
  const int needed = std::stoi(p.why.substr(p.why.rfind("needs ") + 6));
  EXPECT_EQ(needed, p.communicatorsNeeded);
  in.communicators = needed;
  EXPECT_TRUE(planPerCommunicator(in).feasible);
  in.communicators = needed - 1;
  EXPECT_FALSE(planPerCommunicator(in).feasible);
}

TEST(ExperimentPlan, ABucketTooRareForAWindowIsNotPlannedAsIfItWere) {
  PlanInputs in = onePod();
  in.collectivesPerSecond = 2;  // of 640 timed: under one per window and arm
  DesignPlan p = planSwitchback(in);
  EXPECT_FALSE(p.feasible);
  EXPECT_THAT(p.why, ::testing::HasSubstr("windows judge eager collectives"));
  EXPECT_THAT(p.why, ::testing::Not(::testing::HasSubstr("raise the block")))
      << "a longer block is no remedy: past 16 lint refuses it, and it costs replays their units";
}

// Collectives replayed from CUDA graphs: units are fixed by the capture layout. vLLM's 67 graphs of 64 all-reduces,
// captured largest first after a profile run: at block 4 every graph gives 8 rounds, a bucket of one graph 8; at
// block 64 a graph is one turn and no round holds both arms in one graph, so no bucket can reach a verdict, and the
// plan says so rather than predicting one.
CapturePlanInputs vllmLayout(uint32_t block) {
  CapturePlanInputs in;
  std::vector<int> sizes = {1, 2, 4};
  for (int b = 8; b <= 512; b += 8) sizes.push_back(b);
  for (auto s = sizes.rbegin(); s != sizes.rend(); ++s) {
    int bucket = 0;
    while ((uint64_t{2} << bucket) <= static_cast<uint64_t>(*s) * 16384) ++bucket;
    in.layout.graphBuckets.push_back(bucket);
  }
  in.layout.perGraph = 64;
  in.layout.callsBefore = 64;
  in.layout.block = block;
  in.layout.washout = 2;
  in.draws = 100;
  return in;
}

TEST(CapturePlan, TheLayoutFixesEachBucketsRounds) {
  std::vector<BucketPlan> plan = planCaptures(vllmLayout(4));
  ASSERT_EQ(plan.size(), 10u);
  EXPECT_EQ(plan.front().bucket, 14);  // 16 KiB: batch 1 alone
  EXPECT_EQ(plan.front().graphs, 1);
  EXPECT_DOUBLE_EQ(plan.front().units, 8);
  EXPECT_EQ(plan[8].graphs, 32);  // 256-504: 4-8 MiB
  EXPECT_DOUBLE_EQ(plan[8].units, 256);
  for (const BucketPlan& p : plan) EXPECT_GT(p.power, 0.95) << p.bucket << ": no position effect, 5%";
  for (const BucketPlan& p : planCaptures(vllmLayout(64))) {
    EXPECT_EQ(p.units, 0) << p.bucket;
    EXPECT_EQ(p.power, 0) << p.bucket;
  }
}

// With 40 layers and the embedding's all-reduce (81 per graph), batch 1's and 2's graphs keep their slow first
// all-reduce in one turn of one round: a verdict comes exactly when that round's draw puts it on the effect's side.
// The plan draws in mirrored pairs, so it says even odds, not even odds give or take the spread of its draws.
TEST(CapturePlan, AVerdictThatTurnsOnOneRoundsSignHasEvenOdds) {
  CapturePlanInputs in = vllmLayout(4);
  in.layout.perGraph = 81;
  in.layout.callsBefore = 81;
  in.positionEffects.assign(81, 0.0);
  in.positionEffects[0] = std::log(2.0);
  for (size_t p = 2; p < 81; p += 2) in.positionEffects[p] = std::log(1.1);
  for (const BucketPlan& p : planCaptures(in)) {
    if (p.bucket <= 15) {
      EXPECT_DOUBLE_EQ(p.power, 0.5) << p.bucket;
    } else {
      EXPECT_DOUBLE_EQ(p.power, 1.0) << p.bucket;
    }
  }
}

TEST(CapturePlan, ObservedUnitsArePlannedWithTheirOwnSpread) {
  // Eight units, one of which holds a slow position (a huge difference of either sign): a verdict comes only when
  // that one falls on the effect's side, about half the draws; with two communicators' worth, unless both fall
  // against it (a quarter); with four, always.
  std::vector<double> units = {0.001, -0.002, 0.0015, -0.001, 0.002, 0.0005, -0.0005, 0.17};
  const double one = powerOfObservedUnits(units, 0.05, 1, 0.95, 0.01, 400, 3);
  EXPECT_GT(one, 0.35);
  EXPECT_LT(one, 0.65);
  const double two = powerOfObservedUnits(units, 0.05, 2, 0.95, 0.01, 400, 3);
  EXPECT_GT(two, 0.65);
  EXPECT_LT(two, 0.85);
  EXPECT_GT(powerOfObservedUnits(units, 0.05, 4, 0.95, 0.01, 400, 3), 0.95);
  EXPECT_LT(powerOfObservedUnits(units, 0.0, 2, 0.95, 0.01, 400, 3), 0.1) << "no effect, seldom a verdict";
}

}  // namespace
}  // namespace nccl_roce::verdicts

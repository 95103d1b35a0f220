// What `nccl-roce ab plan` tells an operator (verdicts/experiment_plan.h): the t test's power as textbooks give it,
// time to a verdict that shrinks with traffic, and a per-communicator design that no amount of time rescues when
// its pods are too few, saying how many it needs.
#include "verdicts/experiment_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

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
  in.communicatorsPerPod = 4;
  EXPECT_LT(planSwitchback(in).seconds, base.seconds);
  in.communicatorsPerPod = 1;
  in.effect = 0.05;
  EXPECT_LT(planSwitchback(in).seconds, base.seconds);
  in.effect = 0.02;
  EXPECT_GE(switchbackPower(in, base.seconds), 0.8 - 1e-9) << "the time planned gives the power asked";
  EXPECT_LT(switchbackPower(in, base.seconds / 2), 0.8) << "and half of it does not";
}

TEST(ExperimentPlan, TooFewPodsNeverGiveAPerCommunicatorVerdictAndTheMessageSaysHowMany) {
  PlanInputs in = onePod();
  in.pods = 4;
  DesignPlan p = planPerCommunicator(in);
  EXPECT_FALSE(p.feasible);
  EXPECT_THAT(p.why, ::testing::HasSubstr("never with 4 pods (2 communicators in the smallest arm)"));
  // The pods it names are enough, and one fewer is not.
  int pods = std::stoi(p.why.substr(p.why.rfind("needs ") + 6));
  in.pods = pods;
  EXPECT_TRUE(planPerCommunicator(in).feasible);
  in.pods = pods - 1;
  EXPECT_FALSE(planPerCommunicator(in).feasible);
}

TEST(ExperimentPlan, ABucketTooRareForAWindowIsNotPlannedAsIfItWere) {
  PlanInputs in = onePod();
  in.collectivesPerSecond = 2;  // of 640 timed: under one per window and arm
  DesignPlan p = planSwitchback(in);
  EXPECT_FALSE(p.feasible);
  EXPECT_THAT(p.why, ::testing::HasSubstr("raise the block"));
}

}  // namespace
}  // namespace nccl_roce::verdicts

// `nccl-roce ab fit`, calibrated on simulated exploration fleets with a known best arm per bucket: at the minimum
// evidence it accepts, the share of false rules stays at or below the nominal false discovery rate, the known
// best arm is found in most buckets where one is faster, buckets where nothing is faster rarely get a rule, and a
// fleet where no arm is faster gets a rule no more often than the confidence allows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/calibration/ab_fit_simulation.h"

namespace nccl_roce::fleet::calibration {
namespace {

// The most a rate observed over n trials may exceed p by before it is more than chance: 3 binomial sigmas.
double slack(double p, int n) {
  return 3 * std::sqrt(p * (1 - p) / n);
}

constexpr int kPerArm = kAbFitMinCommunicators;
constexpr int kControl = 4 * kAbFitMinCommunicators;  // weights 4:1:1:1

void print(const char* what, const FitTally& t) {
  std::printf(
      "%s: %d fits, %d rules, %d false (FDR %.2f%%), best arm found in %d of %d buckets with a gain (%.1f%%), "
      "%d of %d null buckets ruled, %d fits with any rule\n",
      what, t.fits, t.rules, t.falseRules, 100 * t.falseDiscoveryRate(), t.found, t.gainBuckets,
      100.0 * t.found / std::max(t.gainBuckets, 1), t.nullRuled, t.nullBuckets, t.fitsWithRules);
}

TEST(AbFitCalibration, AtTheMinimumEvidenceFalseRulesStayWithinTheFalseDiscoveryRate) {
  const int fleets = 60;
  FitTally t = runFits(explorationFleet(kPerArm, kControl, 0.08), fleets, 1, AbFitOptions{});
  print("8% gains", t);
  ASSERT_EQ(t.refused, 0) << "the fleets hold the minimum evidence";
  ASSERT_GT(t.rules, 0);
  const double q = 1 - AbFitOptions{}.settings.confidence;
  EXPECT_LE(static_cast<double>(t.falseRules) / t.rules, q + slack(q, t.rules)) << t.falseRules << " of " << t.rules;
  EXPECT_LE(t.falseDiscoveryRate(), q + slack(q, t.fits));
}

TEST(AbFitCalibration, TheKnownBestArmIsFoundInMostBucketsWithAnEightPercentGain) {
  const int fleets = 60;
  FitTally t = runFits(explorationFleet(kPerArm, kControl, 0.08), fleets, 1001, AbFitOptions{});
  print("8% gains, power", t);
  ASSERT_EQ(t.gainBuckets, fleets * 7);
  EXPECT_GE(static_cast<double>(t.found) / t.gainBuckets, 0.80 - slack(0.2, t.gainBuckets)) << t.found;
  ASSERT_EQ(t.nullBuckets, fleets * 6);
  // Null buckets rarely get a rule: a false discovery rate of q allows q / (1 - q) false rules per true one, here
  // shared among the null buckets.
  const double q = 1 - AbFitOptions{}.settings.confidence;
  const double bound = q / (1 - q) * t.gainBuckets / t.nullBuckets;
  EXPECT_LE(static_cast<double>(t.nullRuled) / t.nullBuckets, bound + slack(bound, t.nullBuckets)) << t.nullRuled;
}

TEST(AbFitCalibration, AFleetWhereNoArmIsFasterRarelyGetsAnyRule) {
  const int fleets = 100;
  FitTally t = runFits(explorationFleet(kPerArm, kControl, 0.0), fleets, 5001, AbFitOptions{});
  print("no gain anywhere", t);
  ASSERT_EQ(t.gainBuckets, 0);
  const double q = 1 - AbFitOptions{}.settings.confidence;
  // With every challenge null, Benjamini-Hochberg bounds the chance of any rule at all by q.
  EXPECT_LE(static_cast<double>(t.fitsWithRules) / t.fits, q + slack(q, t.fits)) << t.fitsWithRules;
}

TEST(AbFitCalibration, BelowTheMinimumTheFitRefuses) {
  FitTally t = runFits(explorationFleet(kPerArm - 1, kControl, 0.08), 3, 7001, AbFitOptions{});
  EXPECT_EQ(t.refused, 3) << "every arm one communicator short in every bucket";
}

}  // namespace
}  // namespace nccl_roce::fleet::calibration

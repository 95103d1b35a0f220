// The interval code checked on inputs small enough to work out by hand: with two units per side the degrees of
// freedom and Student's t have closed forms (df 1: t_p = tan(pi (p - 1/2)), cdf(t) = 1/2 + atan(t) / pi;
// df 2: t_p = (2p - 1) / sqrt(2p(1 - p)), cdf(t) = 1/2 + t / (2 sqrt(2 + t^2))).
#include "verdicts/ratio_interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nccl_roce::verdicts {
namespace {

const double e = std::exp(1.0);

double tQuantileDf1(double p) {
  return std::tan(M_PI * (p - 0.5));
}
double tCdfDf1(double t) {
  return 0.5 + std::atan(t) / M_PI;
}
double tQuantileDf2(double p) {
  return (2 * p - 1) / std::sqrt(2 * p * (1 - p));
}
double tCdfDf2(double t) {
  return 0.5 + t / (2 * std::sqrt(2 + t * t));
}

// log A = {0, 1}, log B = {2, 3}: difference 2, each mean's squared standard error 1/4. The smaller side has 2
// values, so 1 degree of freedom (Cauchy quantiles).
TEST(RatioOfGeometricMeans, TwoAgainstTwoMatchesTheClosedForm) {
  StatusOr<RatioInterval> r = ratioOfGeometricMeans({1, e}, {e * e, e * e * e}, 0.95);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  double half = tQuantileDf1(0.975) * std::sqrt(0.5);
  EXPECT_EQ(r->nA, 2);
  EXPECT_EQ(r->nB, 2);
  EXPECT_EQ(r->degreesOfFreedom, 1.0);
  EXPECT_NEAR(r->ratio, e * e, 1e-12);
  EXPECT_NEAR(std::log(r->low), 2 - half, 1e-9);
  EXPECT_NEAR(std::log(r->high), 2 + half, 1e-9);
  double t = 2 / std::sqrt(0.5);
  EXPECT_NEAR(r->pBSlower, 1 - tCdfDf1(t), 1e-9);
  EXPECT_NEAR(r->pBFaster, tCdfDf1(t), 1e-9);
}

// The method before, kept for the calibration suite: Welch-Satterthwaite's estimate is exactly 2 here.
TEST(RatioOfGeometricMeans, WelchSatterthwaiteMatchesItsClosedForm) {
  StatusOr<RatioInterval> r =
      ratioOfGeometricMeans({1, e}, {e * e, e * e * e}, 0.95, DegreesOfFreedom::kWelchSatterthwaite);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  double half = tQuantileDf2(0.975) * std::sqrt(0.5);
  EXPECT_NEAR(r->degreesOfFreedom, 2.0, 1e-12);
  EXPECT_NEAR(std::log(r->low), 2 - half, 1e-9);
  EXPECT_NEAR(std::log(r->high), 2 + half, 1e-9);
  EXPECT_NEAR(r->pBFaster, tCdfDf2(2 / std::sqrt(0.5)), 1e-9);
}

// One side without spread: all the uncertainty is the other side's; both methods give df = n - 1 = 1.
TEST(RatioOfGeometricMeans, OneSideWithoutSpreadLeavesTheOthersDegreesOfFreedom) {
  for (DegreesOfFreedom method : {DegreesOfFreedom::kSmallerSide, DegreesOfFreedom::kWelchSatterthwaite}) {
    StatusOr<RatioInterval> r = ratioOfGeometricMeans({10, 10}, {10, 10 * e * e}, 0.90, method);
    ASSERT_TRUE(r.isOk()) << r.status().toString();
    EXPECT_NEAR(r->degreesOfFreedom, 1.0, 1e-12);
    // log B - log 10 = {0, 2}: mean 1, variance 2, squared standard error 1.
    double half = tQuantileDf1(0.95);
    EXPECT_NEAR(r->ratio, e, 1e-12);
    EXPECT_NEAR(std::log(r->low), 1 - half, 1e-9);
    EXPECT_NEAR(std::log(r->high), 1 + half, 1e-9);
  }
}

// A canary of 3 against a control of 30: 2 degrees of freedom whatever the spreads, where Welch-Satterthwaite
// would estimate many more from a canary whose 3 values happen to lie close together, and give an interval too
// narrow for 3 values.
TEST(RatioOfGeometricMeans, TheSmallerSideSetsTheDegreesOfFreedom) {
  std::vector<double> control;
  for (int i = 0; i < 30; ++i) control.push_back(100 * std::exp(0.05 * std::sin(i)));
  std::vector<double> canary{95, 95.2, 95.1};
  StatusOr<RatioInterval> smaller = ratioOfGeometricMeans(control, canary, 0.95);
  StatusOr<RatioInterval> welch = ratioOfGeometricMeans(control, canary, 0.95, DegreesOfFreedom::kWelchSatterthwaite);
  ASSERT_TRUE(smaller.isOk() && welch.isOk());
  EXPECT_EQ(smaller->degreesOfFreedom, 2.0);
  EXPECT_GT(welch->degreesOfFreedom, 20.0);
  EXPECT_DOUBLE_EQ(smaller->ratio, welch->ratio);
  EXPECT_LT(smaller->low, welch->low);
  EXPECT_GT(smaller->high, welch->high);
  EXPECT_GT(smaller->pBFaster, welch->pBFaster);
}

TEST(RatioOfGeometricMeans, SwappingTheSidesInvertsEverything) {
  std::vector<double> a{100, 104, 98, 101}, b{90, 93, 95};
  StatusOr<RatioInterval> ab = ratioOfGeometricMeans(a, b, 0.95), ba = ratioOfGeometricMeans(b, a, 0.95);
  ASSERT_TRUE(ab.isOk() && ba.isOk());
  EXPECT_NEAR(ab->ratio * ba->ratio, 1, 1e-12);
  EXPECT_NEAR(ab->low * ba->high, 1, 1e-12);
  EXPECT_NEAR(ab->pBFaster, ba->pBSlower, 1e-12);
  EXPECT_NEAR(ab->pBFaster + ab->pBSlower, 1, 1e-12);
}

TEST(RatioOfGeometricMeans, ScalingBothSidesChangesNothingButTheUnits) {
  StatusOr<RatioInterval> us = ratioOfGeometricMeans({20.1, 20.9, 19.8}, {25.0, 24.1, 26.2}, 0.95);
  StatusOr<RatioInterval> ns = ratioOfGeometricMeans({20100, 20900, 19800}, {25000, 24100, 26200}, 0.95);
  ASSERT_TRUE(us.isOk() && ns.isOk());
  EXPECT_NEAR(us->ratio, ns->ratio, 1e-12);
  EXPECT_NEAR(us->low, ns->low, 1e-12);
  EXPECT_NEAR(us->high, ns->high, 1e-12);
}

TEST(RatioOfGeometricMeans, HigherConfidenceWidensTheInterval) {
  std::vector<double> a{100, 104, 98}, b{90, 93, 95};
  StatusOr<RatioInterval> narrow = ratioOfGeometricMeans(a, b, 0.80), wide = ratioOfGeometricMeans(a, b, 0.99);
  ASSERT_TRUE(narrow.isOk() && wide.isOk());
  EXPECT_LT(wide->low, narrow->low);
  EXPECT_GT(wide->high, narrow->high);
  EXPECT_DOUBLE_EQ(wide->ratio, narrow->ratio);
}

TEST(RatioOfGeometricMeans, RefusesDegenerateData) {
  auto why = [](const std::vector<double>& a, const std::vector<double>& b) {
    StatusOr<RatioInterval> r = ratioOfGeometricMeans(a, b, 0.95);
    EXPECT_FALSE(r.isOk());
    return r.isOk() ? std::string() : r.status().message();
  };
  EXPECT_EQ(why({100}, {90, 91}), "A has 1 value: a spread needs at least 2");
  EXPECT_EQ(why({100, 101}, {}), "B has 0 values: a spread needs at least 2");
  EXPECT_EQ(why({100, 100, 100}, {90, 90}),
            "every value on both sides is identical: no spread to judge a difference by (the same log twice?)");
  EXPECT_EQ(why({100, 0}, {90, 91}), "A holds 0.000000, not a positive time");
  EXPECT_EQ(why({100, 101}, {90, std::nan("")}), "B holds nan, not a positive time");
  EXPECT_EQ(why({100, -3}, {90, 91}), "A holds -3.000000, not a positive time");
  EXPECT_EQ(why({100, HUGE_VAL}, {90, 91}), "A holds inf, not a positive time");
}

}  // namespace
}  // namespace nccl_roce::verdicts

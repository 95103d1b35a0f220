// Verdicts over units whose arms were drawn by fair coin flips (verdicts/signed_rank.h): exact under those flips
// whatever the units hold, intervals that cover, and no verdict from fewer units than any such test can use.
#include "verdicts/signed_rank.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <random>
#include <vector>

namespace nccl_roce::verdicts {
namespace {

bool excludesZero(const RatioInterval& i) {
  return i.low > 1 || i.high < 1;
}

TEST(SignedRank, FewerUnitsThanAnyFairDrawCanJudgeGiveNoVerdict) {
  EXPECT_EQ(fewestUnitsFor(0.95), 6);  // 2 / 2^6 = 3.1% <= 5%; 2 / 2^5 = 6.25% is not
  EXPECT_EQ(fewestUnitsFor(0.99), 8);
  EXPECT_EQ(fewestUnitsFor(0.90), 5);
  StatusOr<RatioInterval> five = signedRankRatio({0.1, 0.2, 0.3, 0.4, 0.5}, 1, 0.95);
  ASSERT_FALSE(five.isOk());
  EXPECT_NE(five.status().message().find("needs at least 6"), std::string::npos) << five.status().message();
  StatusOr<RatioInterval> six = signedRankRatio({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 1, 0.95);
  ASSERT_TRUE(six.isOk()) << six.status().toString();
  EXPECT_TRUE(excludesZero(*six)) << "all six on one side: 2 / 64 of the draws";
  EXPECT_NEAR(six->pBSlower, 1.0 / 64, 1e-12);
}

TEST(SignedRank, TheEstimateAndIntervalAreTheOrderedPairwiseAveragesAsDefined) {
  const std::vector<double> d = {-0.3, 0.05, 0.11, 0.2, 0.21, 0.4, 0.52, 0.6, 0.9, 1.7};
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());  // 55 of them
  StatusOr<RatioInterval> r = signedRankRatio(d, 1, 0.95);
  ASSERT_TRUE(r.isOk());
  EXPECT_NEAR(std::log(r->ratio), walsh[27], 1e-9) << "the median of 55";
  // n = 10 at 95%: P(W+ <= 8) = 0.0244 <= 0.025 < P(W+ <= 9): the 9th smallest and 9th largest.
  EXPECT_NEAR(std::log(r->low), walsh[8], 1e-9);
  EXPECT_NEAR(std::log(r->high), walsh[46], 1e-9);
}

// Every one of the 2^10 draws of signs over fixed magnitudes, a few of them dominating (the units that hold a
// decode step's slow first all-reduce): the signed-rank verdict errs at most 5% of them, exactly; a t interval on
// the same units errs more often.
TEST(SignedRank, UnderFairDrawsOverAnyMagnitudesItErrsAtMostTheNominalRate) {
  const std::vector<double> magnitudes = {0.51, 0.52, 0.53, 0.54, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016};
  int signedRankErrors = 0, tErrors = 0;
  const int draws = 1 << magnitudes.size();
  boost::math::students_t t(static_cast<double>(magnitudes.size()) - 1);
  const double critical = boost::math::quantile(t, 0.975);
  for (int signs = 0; signs < draws; ++signs) {
    std::vector<double> d;
    double sum = 0, sumSq = 0;
    for (size_t i = 0; i < magnitudes.size(); ++i) {
      d.push_back((signs >> i & 1) ? magnitudes[i] : -magnitudes[i]);
      sum += d.back();
      sumSq += d.back() * d.back();
    }
    StatusOr<RatioInterval> r = signedRankRatio(d, 1, 0.95);
    ASSERT_TRUE(r.isOk());
    signedRankErrors += excludesZero(*r);
    const double n = static_cast<double>(d.size()), mean = sum / n;
    const double se = std::sqrt((sumSq - sum * mean) / (n - 1) / n);
    tErrors += std::fabs(mean) > critical * se;
  }
  EXPECT_LE(signedRankErrors, draws * 5 / 100) << signedRankErrors << " of " << draws;
  EXPECT_GT(tErrors, draws * 5 / 100) << "the t interval is what it replaces: " << tErrors << " of " << draws;
}

TEST(SignedRank, IntervalsCoverATrueShiftThroughNoise) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(0, 0.03);
  int covered = 0;
  const int trials = 2000;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> d;
    for (int i = 0; i < 20; ++i) d.push_back(0.05 + noise(random) * (i % 5 == 0 ? 8 : 1));  // some units noisier
    StatusOr<RatioInterval> r = signedRankRatio(d, 1, 0.95);
    ASSERT_TRUE(r.isOk());
    covered += r->low <= std::exp(0.05) && std::exp(0.05) <= r->high;
  }
  EXPECT_GE(covered, trials * 95 / 100 - 3 * 10) << covered;  // 95% less three binomial sd (about 10 of 2000)
}

TEST(SignedRank, ManyUnitsUseTheNormalApproximationAndStillCover) {
  std::mt19937_64 random(3);
  std::normal_distribution<double> noise(0, 0.1);
  int covered = 0, falseCalls = 0;
  const int trials = 400;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> d, null;
    for (int i = 0; i < 300; ++i) {
      d.push_back(-0.02 + noise(random));
      null.push_back(noise(random));
    }
    StatusOr<RatioInterval> r = signedRankRatio(d, 1, 0.95), n = signedRankRatio(null, 1, 0.95);
    ASSERT_TRUE(r.isOk() && n.isOk());
    covered += r->low <= std::exp(-0.02) && std::exp(-0.02) <= r->high;
    falseCalls += excludesZero(*n);
  }
  EXPECT_GE(covered, trials * 95 / 100 - 13);  // three binomial sd of 400 at 95%: 13
  EXPECT_LE(falseCalls, trials * 5 / 100 + 13);
}

TEST(SignedRank, AStratifiedShiftWeighsCellsAlikeAndCovers) {
  std::mt19937_64 random(11);
  std::normal_distribution<double> noise(0, 0.02);
  int covered = 0, nullCalls = 0;
  const int trials = 500;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<std::vector<double>> cells(4), nullCells(4);
    for (size_t c = 0; c < cells.size(); ++c) {
      for (size_t i = 0; i < 6 + 20 * c; ++i) {  // 6, 26, 46, 66 units
        cells[c].push_back(0.03 + noise(random));
        nullCells[c].push_back(noise(random) * (c + 1));
      }
    }
    StatusOr<RatioInterval> r = stratifiedSignedRankRatio(cells, 1, 0.95);
    StatusOr<RatioInterval> n = stratifiedSignedRankRatio(nullCells, 1, 0.95);
    ASSERT_TRUE(r.isOk() && n.isOk());
    covered += r->low <= std::exp(0.03) && std::exp(0.03) <= r->high;
    nullCalls += excludesZero(*n);
  }
  EXPECT_GE(covered, trials * 95 / 100 - 15);
  EXPECT_LE(nullCalls, trials * 5 / 100 + 15);
}

TEST(SignedRank, OneCellAloneIsItsOwnVerdict) {
  const std::vector<double> d = {0.1, 0.2, -0.05, 0.3, 0.25, 0.15, 0.12};
  StatusOr<RatioInterval> one = signedRankRatio(d, 0.01, 0.95),
                          stratified = stratifiedSignedRankRatio({d, {}}, 0.01, 0.95);
  ASSERT_TRUE(one.isOk() && stratified.isOk());
  EXPECT_EQ(one->ratio, stratified->ratio);
  EXPECT_EQ(one->low, stratified->low);
  EXPECT_EQ(one->high, stratified->high);
}

}  // namespace
}  // namespace nccl_roce::verdicts

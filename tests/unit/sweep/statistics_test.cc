// Medians, the generator and the bootstrap behind compare and fit: known answers, determinism.
#include "nccl-tests-integration/sweep/statistics.h"

#include <gtest/gtest.h>

#include <set>

namespace nccl_roce::sweep {
namespace {

TEST(Median, OddEvenAndSingle) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(median({7.5}), 7.5);
  EXPECT_DOUBLE_EQ(median({138.1, 122.7}), 130.4);
}

TEST(Random, IsSplitMix64) {
  Random zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFull);  // the reference implementation's first output for seed 0
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ull);
}

TEST(Random, BelowStaysInRangeAndReachesEveryValue) {
  Random random(42);
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    uint64_t v = random.below(7);
    ASSERT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(PercentileInterval, NearestRank) {
  std::vector<double> draws;
  for (int i = 100; i >= 1; --i) draws.push_back(i);
  auto [lo, hi] = percentileInterval(draws, 0.90);
  EXPECT_DOUBLE_EQ(lo, 5);
  EXPECT_DOUBLE_EQ(hi, 95);
}

TEST(Bootstrap, IdenticalReplicatesGiveAPointInterval) {
  std::vector<double> draws = bootstrapMedianRatios({10, 10, 10}, {5, 5, 5}, 500, 1);
  auto [lo, hi] = percentileInterval(draws, 0.95);
  EXPECT_DOUBLE_EQ(lo, 0.5);
  EXPECT_DOUBLE_EQ(hi, 0.5);
}

// Two baseline replicates and one candidate: a resampled median of two is one of them (1/4 each) or their
// mean (1/2), so the 95% interval runs from candidate/slowest to candidate/fastest.
TEST(Bootstrap, TwoAgainstOneSpansTheBaselineNoise) {
  std::vector<double> draws = bootstrapMedianRatios({138.1, 122.7}, {125.7}, 2000, seedFor(1048576));
  auto [lo, hi] = percentileInterval(draws, 0.95);
  EXPECT_DOUBLE_EQ(lo, 125.7 / 138.1);
  EXPECT_DOUBLE_EQ(hi, 125.7 / 122.7);
  int middle = 0;
  for (double d : draws) middle += d == 125.7 / 130.4;
  EXPECT_NEAR(middle / 2000.0, 0.5, 0.05);
}

TEST(Bootstrap, SameSeedSameDrawsOtherSeedOtherDraws) {
  std::vector<double> a{10, 11, 12, 13}, b{9, 10, 12, 14};
  EXPECT_EQ(bootstrapMedianRatios(a, b, 300, 7), bootstrapMedianRatios(a, b, 300, 7));
  EXPECT_NE(bootstrapMedianRatios(a, b, 300, 7), bootstrapMedianRatios(a, b, 300, 8));
  EXPECT_NE(seedFor(1024), seedFor(2048));
}

}  // namespace
}  // namespace nccl_roce::sweep

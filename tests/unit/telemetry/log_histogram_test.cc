// The histogram's promise: every quantile within 1% of the exact one, in fixed memory, mergeable.
#include "telemetry/log_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace nccl_roce::telemetry {
namespace {

double exactQuantile(std::vector<uint64_t> values, double q) {
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::max(1.0, std::ceil(q * static_cast<double>(values.size()))));
  return static_cast<double>(values[rank - 1]);
}

// Durations from 1 us to 1 s (log-uniform), as collectives of every size give: each reported quantile is
// within 1% of the exact nearest-rank quantile.
TEST(LogHistogram, EveryQuantileIsWithinOnePercent) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> logNs(std::log(1e3), std::log(1e9));
  LogHistogram h;
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<uint64_t>(std::exp(logNs(rng)));
    values.push_back(v);
    h.record(v);
  }
  for (double q : {0.0, 0.001, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    double exact = exactQuantile(values, q);
    double estimate = *h.quantileNs(q);
    EXPECT_LE(std::fabs(estimate - exact) / exact, LogHistogram::kRelativeError + 1e-9) << "q " << q;
  }
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_EQ(h.minNs(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.maxNs(), *std::max_element(values.begin(), values.end()));
}

TEST(LogHistogram, EveryValueIsWithinOnePercentOfItsBinsRepresentative) {
  for (uint64_t v = 101; v < 100000000; v = v * 1013 / 1000 + 1) {
    double rep = LogHistogram::representativeNs(LogHistogram::binOf(v));
    ASSERT_LE(std::fabs(rep - static_cast<double>(v)) / static_cast<double>(v), LogHistogram::kRelativeError + 1e-9)
        << v;
  }
}

// Bin i holds (upperBound(i-1), upperBound(i)]: checked at, just below and just above every bound a duration in
// nanoseconds can meet, so the bin search agrees with the definition everywhere.
TEST(LogHistogram, EveryDurationFallsInTheBinWhoseBoundsHoldIt) {
  for (int bin = 1; bin < LogHistogram::kBins - 1; ++bin) {
    auto bound = static_cast<uint64_t>(LogHistogram::upperBoundNs(bin));
    for (uint64_t v : {bound - 1, bound, bound + 1, bound + 2}) {
      int found = LogHistogram::binOf(v);
      ASSERT_GT(static_cast<double>(v), LogHistogram::upperBoundNs(found - 1)) << v;
      ASSERT_LE(static_cast<double>(v), LogHistogram::upperBoundNs(found)) << v;
    }
  }
  EXPECT_EQ(LogHistogram::binOf(0), 0);
  EXPECT_EQ(LogHistogram::binOf(100), 0);
  EXPECT_EQ(LogHistogram::binOf(UINT64_MAX), LogHistogram::kBins - 1);
}

TEST(LogHistogram, GeometricMeanIsWithinOnePercent) {
  LogHistogram h;
  for (uint64_t v : {20000u, 40000u, 80000u}) h.record(v);  // geometric mean 40 us
  EXPECT_NEAR(*h.geometricMeanNs(), 40000, 400);
}

// `nccl-roce ab` reads only a cell's count and bin sum (from statistics files and from Prometheus): they must give
// the histogram's geometric mean to the last bit, and the mean of the logs of the bins' representative values.
TEST(LogHistogram, CountAndBinSumGiveTheGeometricMeanExactly) {
  LogHistogram h;
  double sumOfLogs = 0;
  for (uint64_t v : {7000u, 20000u, 40000u, 40100u, 80000u, 3000000u}) {
    h.record(v);
    sumOfLogs += std::log(LogHistogram::representativeNs(LogHistogram::binOf(v)));
    EXPECT_GT(LogHistogram::binOf(v), 0);
  }
  uint64_t bins = 0;
  for (uint64_t v : {7000u, 20000u, 40000u, 40100u, 80000u, 3000000u}) bins += LogHistogram::binOf(v);
  EXPECT_EQ(h.binSum(), bins);
  EXPECT_EQ(*LogHistogram::geometricMeanNs(h.count(), h.binSum()), *h.geometricMeanNs());
  EXPECT_NEAR(*h.geometricMeanNs(), std::exp(sumOfLogs / 6), 1e-9 * *h.geometricMeanNs());
  EXPECT_FALSE(LogHistogram::geometricMeanNs(0, 0));
}

TEST(LogHistogram, MergingEqualsRecordingEverythingInOne) {
  LogHistogram a, b, all;
  for (uint64_t v = 1000; v < 5000000; v = v * 3 / 2) {
    (v % 2 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.nonEmptyBins(), all.nonEmptyBins());
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sumNs(), all.sumNs());
  EXPECT_EQ(a.minNs(), all.minNs());
  EXPECT_EQ(a.maxNs(), all.maxNs());
}

TEST(LogHistogram, ValuesOutsideTheRangeAreKeptAndCounted) {
  LogHistogram h;
  h.record(0);
  h.record(50);
  h.record(uint64_t{200} * 1000 * 1000 * 1000);  // 200 s
  EXPECT_EQ(h.below(), 2u);
  EXPECT_EQ(h.above(), 1u);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.nonEmptyBins().front().first, 0);
  EXPECT_EQ(h.nonEmptyBins().back().first, LogHistogram::kBins - 1);
}

// The range's largest whole duration is in it; one nanosecond more is counted as above.
TEST(LogHistogram, TheLargestDurationIsTheLastInTheRange) {
  LogHistogram h;
  h.record(LogHistogram::largestNs());
  EXPECT_EQ(h.above(), 0u);
  EXPECT_EQ(LogHistogram::binOf(LogHistogram::largestNs()), LogHistogram::kBins - 1);
  h.record(LogHistogram::largestNs() + 1);
  EXPECT_EQ(h.above(), 1u);
}

TEST(LogHistogram, AnEmptyHistogramHasNoQuantiles) {
  LogHistogram h;
  EXPECT_FALSE(h.quantileNs(0.5));
  EXPECT_FALSE(h.geometricMeanNs());
  EXPECT_EQ(h.minNs(), 0u);
  EXPECT_TRUE(h.nonEmptyBins().empty());
}

TEST(LogHistogram, BinsReadBackFromTheirSerialisedForm) {
  LogHistogram h, copy;
  for (uint64_t v : {3000u, 3010u, 45000u, 45000u, 900000u}) h.record(v);
  for (auto [bin, count] : h.nonEmptyBins()) copy.addToBin(bin, count);
  EXPECT_EQ(copy.nonEmptyBins(), h.nonEmptyBins());
  EXPECT_EQ(copy.quantileNs(0.5), h.quantileNs(0.5));
  EXPECT_EQ(copy.count(), 5u);
}

TEST(LogHistogram, IsFixedSize) {
  EXPECT_LE(sizeof(LogHistogram), 8 * 1024 + 64u);
}

}  // namespace
}  // namespace nccl_roce::telemetry

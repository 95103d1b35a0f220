// Holm and Benjamini-Hochberg on p-values whose answer can be worked out by hand.
#include "verdicts/multiple_testing.h"

#include <gtest/gtest.h>

namespace nccl_roce::verdicts {
namespace {

using Rejections = std::vector<bool>;

// m = 4, alpha = 0.05: thresholds 0.0125, 0.0167, 0.025, 0.05 for the sorted p-values.
TEST(Holm, StepsDownUntilTheFirstFailure) {
  EXPECT_EQ(holmRejections({0.010, 0.040, 0.012, 0.030}, 0.05), (Rejections{true, false, true, false}));
  // 0.020 > 0.0167 stops the procedure although 0.040 alone would pass its 0.05.
  EXPECT_EQ(holmRejections({0.010, 0.020, 0.040, 0.049}, 0.05), (Rejections{true, false, false, false}));
  EXPECT_EQ(holmRejections({0.001, 0.002, 0.003, 0.004}, 0.05), (Rejections{true, true, true, true}));
  EXPECT_EQ(holmRejections({0.0126, 0.5, 0.5, 0.5}, 0.05), (Rejections{false, false, false, false}));
}

// m = 4, q = 0.05: thresholds 0.0125, 0.025, 0.0375, 0.05; the largest passing rank takes all below it.
TEST(BenjaminiHochberg, StepsUpFromTheLargestPassingRank) {
  EXPECT_EQ(benjaminiHochbergRejections({0.010, 0.020, 0.040, 0.049}, 0.05), (Rejections{true, true, true, true}));
  // Rank 2 (0.030 > 0.025) fails, rank 3 (0.036 <= 0.0375) passes: ranks 1-3 are rejected.
  EXPECT_EQ(benjaminiHochbergRejections({0.036, 0.030, 0.001, 0.9}, 0.05), (Rejections{true, true, true, false}));
  EXPECT_EQ(benjaminiHochbergRejections({0.02, 0.03, 0.04, 0.06}, 0.05), (Rejections{false, false, false, false}));
}

TEST(MultipleTesting, NothingToTestRejectsNothing) {
  EXPECT_TRUE(holmRejections({}, 0.05).empty());
  EXPECT_TRUE(benjaminiHochbergRejections({}, 0.05).empty());
}

TEST(MultipleTesting, OneTestIsAnOrdinaryTest) {
  EXPECT_EQ(holmRejections({0.05}, 0.05), Rejections{true});
  EXPECT_EQ(holmRejections({0.0501}, 0.05), Rejections{false});
  EXPECT_EQ(benjaminiHochbergRejections({0.05}, 0.05), Rejections{true});
}

}  // namespace
}  // namespace nccl_roce::verdicts

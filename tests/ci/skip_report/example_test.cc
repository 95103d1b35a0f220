#include <gtest/gtest.h>

TEST(Example, Passes) {
  EXPECT_EQ(2 + 2, 4);
}

TEST(Example, SkipsWithItsReason) {
  GTEST_SKIP() << "no widget on this machine (set WIDGET to point at one)";
}

#include "common/strings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace nccl_roce {
namespace {

TEST(ParseByteSize, AcceptsUnitsAsOperatorsWriteThem) {
  EXPECT_EQ(*parseByteSize("0"), 0u);
  EXPECT_EQ(*parseByteSize("4096"), 4096u);
  EXPECT_EQ(*parseByteSize("64K"), 64u * 1024);
  EXPECT_EQ(*parseByteSize("64k"), 64u * 1024);
  EXPECT_EQ(*parseByteSize("4M"), 4u << 20);
  EXPECT_EQ(*parseByteSize("16KiB"), 16u * 1024);
  EXPECT_EQ(*parseByteSize("8MB"), 8u << 20);
  EXPECT_EQ(*parseByteSize(" 1G "), 1ull << 30);
  EXPECT_EQ(*parseByteSize("15E"), 15ull << 60);
}

TEST(ParseByteSize, RejectsSizesPastTwoToTheSixtyFour) {
  auto tooBig = parseByteSize("18446744073709551616");
  ASSERT_FALSE(tooBig.isOk());
  EXPECT_NE(tooBig.status().message().find("2^64"), std::string::npos);
  EXPECT_FALSE(parseByteSize("16E").isOk());  // exactly 2^64
  EXPECT_FALSE(parseByteSize("16777216T").isOk());
  EXPECT_TRUE(parseByteSize("18446744073709551615").isOk());
}

TEST(ParseByteSize, NamesWhatIsWrong) {
  EXPECT_NE(parseByteSize("").status().message().find("empty"), std::string::npos);
  EXPECT_NE(parseByteSize("K4").status().message().find("does not start with a number"), std::string::npos);
  EXPECT_NE(parseByteSize("4X").status().message().find("unknown unit 'x'"), std::string::npos);
  EXPECT_FALSE(parseByteSize("-4K").isOk());
  EXPECT_FALSE(parseByteSize("4KK").isOk());
}

TEST(FormatByteSize, UsesTheLargestExactUnit) {
  EXPECT_EQ(formatByteSize(0), "0");
  EXPECT_EQ(formatByteSize(1000), "1000");
  EXPECT_EQ(formatByteSize(65536), "64K");
  EXPECT_EQ(formatByteSize(1536 * 1024), "1536K");
  EXPECT_EQ(formatByteSize(64ull << 20), "64M");
  EXPECT_EQ(*parseByteSize(formatByteSize(123456789)), 123456789u);
}

TEST(ParseUnsigned, IsStrictUnlikeAtoi) {
  EXPECT_EQ(parseUnsigned("42"), 42u);
  EXPECT_EQ(parseUnsigned("007"), 7u);
  EXPECT_FALSE(parseUnsigned(""));
  EXPECT_FALSE(parseUnsigned("abc"));  // atoi would say 0
  EXPECT_FALSE(parseUnsigned("4 "));
  EXPECT_FALSE(parseUnsigned("+4"));
  EXPECT_FALSE(parseUnsigned("0x3"));  // strtoll(...,0) would say 3
  EXPECT_FALSE(parseUnsigned("18446744073709551616"));
}

TEST(ParseSigned, TakesAMinusButNothingElseAroundTheDigits) {
  EXPECT_EQ(parseSigned("-1"), -1);  // nccl-tests' "root -1" and out-of-bounds counts
  EXPECT_EQ(parseSigned("22809"), 22809);
  EXPECT_FALSE(parseSigned(""));
  EXPECT_FALSE(parseSigned("+4"));
  EXPECT_FALSE(parseSigned("4 "));
  EXPECT_FALSE(parseSigned("9223372036854775808"));
}

TEST(FormatFixed, WritesTheDecimalsAskedFor) {
  EXPECT_EQ(formatFixed(1.0 / 3, 3), "0.333");
  EXPECT_EQ(formatFixed(2.5, 0), "2");  // round half to even, as printf does
  EXPECT_EQ(formatFixed(-0.125, 2), "-0.12");
}

TEST(Join, PutsTheSeparatorOnlyBetweenItems) {
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"a", "", "b"}, "; "), "a; ; b");
}

TEST(Split, KeepsEmptyFields) {
  std::vector<std::string_view> expected{"a", "", "b", ""};
  EXPECT_EQ(split("a,,b,", ','), expected);
  EXPECT_EQ(split("", ',').size(), 1u);
}

TEST(Trim, StripsTheKernelsTrailingNewline) {
  EXPECT_EQ(trim("4: ACTIVE\n"), "4: ACTIVE");
  EXPECT_EQ(trim("  \t\n"), "");
}

TEST(NaturalLess, OrdersDeviceNamesAsOperatorsExpect) {
  std::vector<std::string> names{"mlx5_10", "mlx5_2",      "mlx5_bond_0", "mlx5_1",
                                 "mlx5_0",  "rocep65s0f0", "rocep9s0f0",  "ibp0s12f4"};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
  std::vector<std::string> expected{"ibp0s12f4", "mlx5_0",      "mlx5_1",     "mlx5_2",
                                    "mlx5_10",   "mlx5_bond_0", "rocep9s0f0", "rocep65s0f0"};
  EXPECT_EQ(names, expected);
}

TEST(NaturalLess, IsAStrictWeakOrder) {
  EXPECT_FALSE(naturalLess("mlx5_1", "mlx5_1"));
  EXPECT_TRUE(naturalLess("a1", "a01"));
  EXPECT_FALSE(naturalLess("a01", "a1"));
  EXPECT_TRUE(naturalLess("mlx5", "mlx5_0"));
}

}  // namespace
}  // namespace nccl_roce

// Comparing units cell by cell and over a range: the unit, not the cell, is the sample.
#include "verdicts/unit_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nccl_roce::verdicts {
namespace {

Unit unit(const std::string& name, std::map<uint64_t, double> values) {
  return Unit{name, std::move(values)};
}

// A run slow at every size counts once: B's runs are A's scaled by 0.9, and one run of each side is 20% slow
// everywhere. The range interval equals the interval of the per-run geometric means, which is the per-cell
// interval when every cell is alike.
TEST(CompareUnits, ARunSlowEverywhereIsOneSample) {
  std::vector<Unit> a{unit("a1", {{1, 100}, {2, 200}}), unit("a2", {{1, 120}, {2, 240}}),
                      unit("a3", {{1, 101}, {2, 202}})};
  std::vector<Unit> b{unit("b1", {{1, 90}, {2, 180}}), unit("b2", {{1, 108}, {2, 216}}),
                      unit("b3", {{1, 90.9}, {2, 181.8}})};
  Settings settings;
  UnitComparison c = compareUnits(a, b, 0, 10, settings);
  ASSERT_EQ(c.cells.size(), 2u);
  ASSERT_TRUE(c.cells[0].interval && c.range.interval);
  EXPECT_NEAR(c.cells[0].ratio, 0.9, 1e-12);
  EXPECT_NEAR(c.range.interval->ratio, 0.9, 1e-12);
  EXPECT_NEAR(c.range.interval->low, c.cells[0].interval->low, 1e-12);
  EXPECT_NEAR(c.range.interval->high, c.cells[1].interval->high, 1e-12);
  EXPECT_EQ(c.range.interval->nA, 3);  // three runs, not six cells
  EXPECT_EQ(c.range.cells, (std::vector<uint64_t>{1, 2}));
  EXPECT_NEAR(c.cells[1].geomeanA, std::cbrt(200.0 * 240 * 202), 1e-9);
}

TEST(CompareUnits, TheRangeAveragesLogRatiosOverItsCells) {
  // Cell 1: B/A = 0.5 exactly; cell 2: B/A = 2 exactly; a tiny spread keeps the intervals defined.
  std::vector<Unit> a{unit("a1", {{1, 100}, {2, 100}, {3, 100}}), unit("a2", {{1, 101}, {2, 101}, {3, 101}})};
  std::vector<Unit> b{unit("b1", {{1, 50}, {2, 200}, {3, 400}}), unit("b2", {{1, 50.5}, {2, 202}, {3, 404}})};
  UnitComparison c = compareUnits(a, b, 1, 2, Settings{});
  ASSERT_TRUE(c.range.interval);
  EXPECT_NEAR(c.range.interval->ratio, 1.0, 1e-12);  // sqrt(0.5 * 2); cell 3 is outside the range
  EXPECT_EQ(c.range.faster, 1);
  EXPECT_EQ(c.range.slower, 1);
  EXPECT_EQ(c.range.noDifference, 0);
}

TEST(CompareUnits, CellsNotMeasuredByEveryUnitStayOutOfTheRange) {
  std::vector<Unit> a{unit("a1", {{1, 100}, {2, 100}}), unit("a2", {{1, 102}})};  // a2 stopped early
  std::vector<Unit> b{unit("b1", {{1, 80}, {2, 80}}), unit("b2", {{1, 81}, {2, 83}})};
  UnitComparison c = compareUnits(a, b, 0, 10, Settings{});
  EXPECT_EQ(c.range.cells, std::vector<uint64_t>{1});
  EXPECT_EQ(c.range.unevenCells, std::vector<uint64_t>{2});
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_EQ(c.cells[1].nA, 1);
  EXPECT_EQ(c.cells[1].verdict, Verdict::kInsufficient);
  EXPECT_EQ(c.cells[1].whyNoInterval, "A has 1 value: a spread needs at least 2");
  EXPECT_NEAR(c.cells[1].ratio, std::sqrt(80.0 * 83) / 100, 1e-12);  // the numbers stay
}

TEST(CompareUnits, TooFewUnitsGiveNumbersButNoVerdict) {
  std::vector<Unit> a{unit("a1", {{1, 100}}), unit("a2", {{1, 104}})};
  std::vector<Unit> b{unit("b1", {{1, 50}}), unit("b2", {{1, 51}})};
  Settings settings;
  settings.minUnits = 3;
  UnitComparison c = compareUnits(a, b, 0, 10, settings);
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_TRUE(c.cells[0].interval);
  EXPECT_EQ(c.cells[0].verdict, Verdict::kInsufficient);
  EXPECT_EQ(c.cells[0].whyNoInterval, "fewer than 3 units on a side");
  EXPECT_EQ(c.range.verdict, Verdict::kInsufficient);
}

TEST(CompareUnits, IdenticalCopiesGiveNoVerdictAndSayWhy) {
  std::vector<Unit> a{unit("a1", {{1, 100}}), unit("a2", {{1, 100}})};
  UnitComparison c = compareUnits(a, a, 0, 10, Settings{});
  EXPECT_EQ(c.cells.at(0).verdict, Verdict::kInsufficient);
  EXPECT_NE(c.cells.at(0).whyNoInterval.find("identical"), std::string::npos);
  EXPECT_EQ(c.range.verdict, Verdict::kInsufficient);
  EXPECT_NE(c.range.whyNoInterval.find("identical"), std::string::npos);
}

TEST(CompareUnits, CellsOnOneSideOnlyAreNotCompared) {
  std::vector<Unit> a{unit("a1", {{1, 100}, {2, 1}}), unit("a2", {{1, 101}, {2, 1}})};
  std::vector<Unit> b{unit("b1", {{1, 90}, {3, 1}}), unit("b2", {{1, 91}, {3, 1}})};
  UnitComparison c = compareUnits(a, b, 0, 10, Settings{});
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_EQ(c.cells[0].cell, 1u);
}

}  // namespace
}  // namespace nccl_roce::verdicts

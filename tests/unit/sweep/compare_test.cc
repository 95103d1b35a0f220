// sweep compare on synthetic sweeps whose answer is known, and on the published AWS p5 logs.
#include "nccl-tests-integration/sweep/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nccl-tests-integration/sweep/compare_report.h"
#include "nccl-tests-integration/sweep/svg_chart.h"
#include "tests/unit/sweep/sweep_test_data.h"
#include "tests/unit/sweep/synthetic_sweep.h"

namespace nccl_roce::sweep {
namespace {

using testing::baseTimeUs;
using testing::powersOfTwo;
using testing::syntheticLog;
using testing::SyntheticRun;

constexpr uint64_t kK = 1024, kM = 1024 * 1024;

// Three replicates with noise factors; `speedup(size)` scales the candidate's times.
std::vector<PerfLog> replicates(const std::vector<double>& noise, std::function<double(uint64_t)> factor,
                                std::vector<uint64_t> sizes = powersOfTwo(8, 64 * 1024 * 1024)) {
  std::vector<PerfLog> logs;
  for (double n : noise) {
    SyntheticRun run;
    run.sizes = sizes;
    run.timeUs = [n, factor](uint64_t s) { return baseTimeUs(s) * factor(s) * n; };
    logs.push_back(syntheticLog(run));
  }
  return logs;
}

const verdicts::CellComparison& at(const SeriesComparison& s, uint64_t size) {
  for (const verdicts::CellComparison& z : s.result.cells) {
    if (z.cell == size) return z;
  }
  static verdicts::CellComparison none;
  ADD_FAILURE() << "size " << size << " not compared";
  return none;
}

Comparison compare(const std::vector<PerfLog>& a, const std::vector<PerfLog>& b, CompareOptions options = {}) {
  return compareSweeps(collectSamples(a, options.placement), collectSamples(b, options.placement), options);
}

TEST(Compare, CandidateTwentyPercentFasterFrom16KTo1M) {
  auto same = [](uint64_t) { return 1.0; };
  auto faster = [](uint64_t s) { return s >= 16 * kK && s <= kM ? 0.8 : 1.0; };
  Comparison c = compare(replicates({0.99, 1.0, 1.01}, same), replicates({1.005, 0.995, 1.0}, faster));
  ASSERT_EQ(c.series.size(), 1u);
  const SeriesComparison& s = c.series[0];
  EXPECT_EQ(s.key.collective, "all_reduce");
  EXPECT_EQ(s.key.ranks, 16);
  EXPECT_EQ(s.runsA, 3);
  EXPECT_EQ(s.runsB, 3);
  EXPECT_EQ(s.result.cells.size(), 24u);
  for (const verdicts::CellComparison& z : s.result.cells) {
    SCOPED_TRACE(z.cell);
    bool inFasterBand = z.cell >= 16 * kK && z.cell <= kM;
    EXPECT_EQ(z.nA, 3);
    EXPECT_NEAR(z.ratio, inFasterBand ? 0.8 : 1.0, 2e-3);
    EXPECT_EQ(z.verdict, inFasterBand ? Verdict::kFaster : Verdict::kNoDifference);
    ASSERT_TRUE(z.interval);
    EXPECT_LE(z.interval->low, z.ratio);
    EXPECT_GE(z.interval->high, z.ratio);
  }
  // 16K..64M holds 13 sizes, 7 of them 0.8: geometric mean 0.8^(7/13).
  const verdicts::RangeComparison& r = s.result.range;
  EXPECT_EQ(r.cells.size(), 13u);
  EXPECT_EQ(r.faster, 7);
  EXPECT_EQ(r.noDifference, 6);
  EXPECT_EQ(r.slower, 0);
  ASSERT_TRUE(r.interval);
  EXPECT_NEAR(r.interval->ratio, std::pow(0.8, 7.0 / 13.0), 2e-3);
  EXPECT_EQ(r.interval->nA, 3);  // three runs, not 39 run x size samples
  EXPECT_LT(r.interval->high, 1.0);
  EXPECT_EQ(r.verdict, Verdict::kFaster);
  ASSERT_TRUE(s.bestSize && s.worstSize);
  EXPECT_TRUE(*s.bestSize >= 16 * kK && *s.bestSize <= kM) << *s.bestSize;  // one of the 0.8 ratios
  EXPECT_TRUE(*s.worstSize > kM) << *s.worstSize;
  EXPECT_LT(at(s, 64 * kK).interval->high, 0.83) << "1% noise, 3 runs a side: t on 2 degrees of freedom";
}

TEST(Compare, SlowerCandidateIsCalledSlower) {
  auto same = [](uint64_t) { return 1.0; };
  auto slower = [](uint64_t) { return 1.3; };
  Comparison c = compare(replicates({0.98, 1.0, 1.02}, same), replicates({0.98, 1.0, 1.02}, slower));
  const SeriesComparison& s = c.series.at(0);
  EXPECT_EQ(s.result.range.slower, 13);
  EXPECT_EQ(s.result.range.verdict, Verdict::kSlower);
  EXPECT_NEAR(s.result.range.interval->ratio, 1.3, 2e-3);
  EXPECT_EQ(describeRatio(s.result.range.interval->ratio, s.result.range.verdict), "B is 30.0% slower");
}

TEST(Compare, NoiseOverlappingTheDifferenceIsNoDifference) {
  auto same = [](uint64_t) { return 1.0; };
  auto slightly = [](uint64_t) { return 0.97; };
  Comparison c = compare(replicates({0.9, 1.0, 1.1}, same), replicates({0.9, 1.0, 1.1}, slightly));
  EXPECT_EQ(c.series.at(0).result.range.faster, 0);
  EXPECT_EQ(c.series.at(0).result.range.verdict, Verdict::kNoDifference);
  EXPECT_EQ(at(c.series.at(0), 1 * kM).verdict, Verdict::kNoDifference);
}

TEST(Compare, MinimumEffectSilencesTinyButCertainDifferences) {
  auto same = [](uint64_t) { return 1.0; };
  auto tiny = [](uint64_t) { return 0.995; };
  std::vector<PerfLog> a = replicates({0.999, 1.0, 1.001}, same), b = replicates({0.999, 1.0, 1.001}, tiny);
  const uint64_t size = 64 * kM;  // large enough that 0.1% and 0.5% survive nccl-tests' two decimals
  EXPECT_EQ(at(compare(a, b).series.at(0), size).verdict, Verdict::kNoDifference);  // default 1%
  CompareOptions strict;
  strict.verdicts.minEffect = 0;
  EXPECT_EQ(at(compare(a, b, strict).series.at(0), size).verdict, Verdict::kFaster);
}

TEST(Compare, OneReplicateGetsNumbersButNoVerdict) {
  auto same = [](uint64_t) { return 1.0; };
  auto half = [](uint64_t) { return 0.5; };
  Comparison c = compare(replicates({1.0}, same), replicates({1.0}, half));
  const SeriesComparison& s = c.series.at(0);
  EXPECT_EQ(at(s, 1 * kM).verdict, Verdict::kInsufficient);
  EXPECT_EQ(at(s, 1 * kM).whyNoInterval, "A has 1 value: a spread needs at least 2");
  EXPECT_NEAR(at(s, 1 * kM).ratio, 0.5, 1e-3);  // the numbers are still there
  EXPECT_EQ(s.result.range.insufficient, 13);
  EXPECT_FALSE(s.result.range.interval);
  EXPECT_EQ(s.result.range.verdict, Verdict::kInsufficient);
  EXPECT_NE(comparisonToMarkdown(c).find("Inference range 16K..=64M (13 sizes): no verdict: A has 1 value"),
            std::string::npos)
      << comparisonToMarkdown(c);
}

TEST(Compare, IdenticalReplicatesGiveNoVerdictFromDegenerateData) {
  auto same = [](uint64_t) { return 1.0; };
  std::vector<PerfLog> a = replicates({1.0, 1.0, 1.0}, same);  // one log copied three times
  Comparison c = compare(a, replicates({1.0, 1.0, 1.0}, [](uint64_t) { return 0.5; }));
  const SeriesComparison& s = c.series.at(0);
  for (const verdicts::CellComparison& z : s.result.cells) {
    EXPECT_EQ(z.verdict, Verdict::kInsufficient) << z.cell;
    EXPECT_NE(z.whyNoInterval.find("identical"), std::string::npos);
  }
  EXPECT_EQ(s.result.range.verdict, Verdict::kInsufficient);
  nlohmann::json j = comparisonToJson(c);
  EXPECT_EQ(j["series"][0]["summary"]["verdict"], "insufficient data");
  EXPECT_NE(j["series"][0]["summary"]["why_no_verdict"].get<std::string>().find("identical"), std::string::npos);
}

TEST(Compare, ZeroTimesAreLeftOutWithANote) {
  SyntheticRun run{powersOfTwo(1 * kK, 4 * kK), baseTimeUs, 2, 1, {}};
  PerfLog log = syntheticLog(run, "zero.log");
  log.runs[0].rows[0].outOfPlace->timeUs = 0.0;  // printed as 0.00
  SampleSet set = collectSamples({log}, Placement::kOutOfPlace);
  EXPECT_EQ(set.series.begin()->second.runs[0].values.count(1 * kK), 0u);
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_EQ(set.notes[0], "zero.log:1: 1 rows have no usable out-of-place time (absent, or 0.00: too short to print)");
}

TEST(Compare, ReplicatesWithDifferentSizeListsAreNamed) {
  auto same = [](uint64_t) { return 1.0; };
  std::vector<PerfLog> a = replicates({0.99, 1.0}, same, powersOfTwo(1 * kK, 1 * kM));
  std::vector<PerfLog> shorter = replicates({1.01}, same, powersOfTwo(1 * kK, 512 * kK));  // stopped early
  a.push_back(shorter[0]);
  std::vector<PerfLog> b = replicates({0.99, 1.0, 1.01}, same, powersOfTwo(1 * kK, 2 * kM));
  Comparison c = compare(a, b);
  const SeriesComparison& s = c.series.at(0);
  EXPECT_EQ(s.runsA, 3);
  EXPECT_EQ(s.unevenSizes, std::vector<std::string>{"1M: A has 2 of 3 replicates"});
  EXPECT_EQ(s.onlyInB, std::vector<uint64_t>{2 * kM});
  EXPECT_EQ(at(s, 1 * kM).nA, 2);
  EXPECT_TRUE(s.onlyInA.empty());
  // The summary averages each run over the same sizes, so 1M stays out of it.
  EXPECT_EQ(s.result.range.unevenCells, std::vector<uint64_t>{1 * kM});
  EXPECT_EQ(s.result.range.cells.size(), 6u);  // 16K..512K
}

TEST(Compare, DifferentRankCountsAreNotCompared) {
  SyntheticRun sixteen{powersOfTwo(1 * kK, 4 * kK), baseTimeUs, 16, 2, {}};
  SyntheticRun eight{powersOfTwo(1 * kK, 4 * kK), baseTimeUs, 8, 1, {}};
  Comparison c = compare({syntheticLog(sixteen)}, {syntheticLog(eight)});
  EXPECT_TRUE(c.series.empty());
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_EQ(c.notes[0],
            "only A measured all_reduce float sum, 16 ranks; B measured all_reduce float sum, 8 ranks (rank count "
            "differs)");
  EXPECT_EQ(c.notes[1], "only B measured all_reduce float sum, 8 ranks");
}

TEST(Compare, DifferentDataTypesAreNamed) {
  SyntheticRun run{powersOfTwo(1 * kK, 4 * kK), baseTimeUs, 16, 2, {}};
  std::string text = testing::syntheticLogText(run);
  for (size_t at = text.find(" float "); at != std::string::npos; at = text.find(" float ", at)) {
    text.replace(at, 7, "  half ");
  }
  Comparison c = compare({syntheticLog(run)}, {parsePerfLog(text, "half.log")});
  EXPECT_TRUE(c.series.empty());
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("B measured all_reduce half sum, 16 ranks (data type differs)"), std::string::npos)
      << c.notes[0];
}

TEST(Compare, RejectedRunsAreLeftOutWithANote) {
  SyntheticRun run{powersOfTwo(1 * kK, 4 * kK), baseTimeUs, 2, 1, {}};
  std::string text = testing::syntheticLogText(run);
  // A second "Rank 0" line: two processes wrote this log.
  text.insert(text.find("#  Rank  1"), "#  Rank  0 Group  0 Pid   2000 on      node0 device  0 [0000:19:00] x\n");
  std::vector<PerfLog> a{parsePerfLog(text, "bad.log"), syntheticLog(run, "good.log")};
  SampleSet set = collectSamples(a, Placement::kOutOfPlace);
  EXPECT_EQ(set.runsUsed, 1);
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_NE(set.notes[0].find("bad.log:1: run left out: rank 0 is listed twice"), std::string::npos);
}

TEST(Compare, InPlaceTimesWhenAsked) {
  SyntheticRun run{{1 * kK}, baseTimeUs, 2, 1, {}};
  std::string text = testing::syntheticLogText(run);
  // Make the in-place time twice the out-of-place one.
  PerfLog log = parsePerfLog(text, "x");
  log.runs[0].rows[0].inPlace->timeUs = 2 * *log.runs[0].rows[0].outOfPlace->timeUs;
  SampleSet out = collectSamples({log}, Placement::kOutOfPlace);
  SampleSet in = collectSamples({log}, Placement::kInPlace);
  double oop = out.series.begin()->second.runs[0].values.at(1 * kK);
  EXPECT_DOUBLE_EQ(in.series.begin()->second.runs[0].values.at(1 * kK), 2 * oop);
}

// S2 of tests/data/nccl-tests/INDEX.md: two runs of NCCL's default against one run with aws-ofi-nccl's tuner.
// One tuner run has no spread of its own, so there is no verdict, only ratios; and the logs show two NCCL
// versions, which the comparison names.
TEST(Compare, PublishedAwsDefaultRunsAgainstTheOfiTuner) {
  std::vector<PerfLog> a{testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt"),
                         testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-b.txt")};
  std::vector<PerfLog> b{testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_ofi-tuner.txt")};
  Comparison c = compare(a, b);
  ASSERT_EQ(c.series.size(), 1u);
  const SeriesComparison& s = c.series[0];
  EXPECT_EQ(s.result.cells.size(), 32u);
  // 64K out-of-place: A 107.4 and 106.8 us, B 135.8 us.
  const verdicts::CellComparison& k64 = at(s, 64 * kK);
  EXPECT_DOUBLE_EQ(k64.geomeanA, std::sqrt(107.4 * 106.8));
  EXPECT_NEAR(k64.ratio, 135.8 / std::sqrt(107.4 * 106.8), 1e-12);
  EXPECT_EQ(k64.verdict, Verdict::kInsufficient);
  EXPECT_EQ(k64.whyNoInterval, "B has 1 value: a spread needs at least 2");
  // 8K: the tuner run is slower than both default runs; 1M: between them (the default runs differ by 12%).
  EXPECT_GT(at(s, 8 * kK).ratio, 106.3 / 95.51 - 1e-9);
  EXPECT_GT(125.7 / 122.7, at(s, kM).ratio);
  EXPECT_GT(at(s, kM).ratio, 125.7 / 138.1);
  EXPECT_EQ(s.result.range.verdict, Verdict::kInsufficient);
  bool versionsNamed = false;
  for (const std::string& note : c.notes) {
    versionsNamed |=
        note.find("A ran NCCL 2.22.3") != std::string::npos && note.find("B ran NCCL 2.20.3") != std::string::npos;
  }
  EXPECT_TRUE(versionsNamed) << ::testing::PrintToString(c.notes);
}

TEST(Compare, APublishedSweepAgainstItselfShowsNoDifference) {
  std::vector<PerfLog> a{testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt"),
                         testing::parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-b.txt")};
  Comparison c = compare(a, a);
  for (const verdicts::CellComparison& z : c.series.at(0).result.cells) {
    EXPECT_DOUBLE_EQ(z.ratio, 1.0);
    EXPECT_EQ(z.verdict, Verdict::kNoDifference) << z.cell;
  }
  EXPECT_EQ(c.series.at(0).result.range.verdict, Verdict::kNoDifference);
}

TEST(CompareReport, MarkdownJsonAndSvgSayTheSameThing) {
  auto same = [](uint64_t) { return 1.0; };
  auto faster = [](uint64_t s) { return s >= 16 * kK && s <= kM ? 0.8 : 1.0; };
  Comparison c = compare(replicates({0.99, 1.0, 1.01}, same), replicates({1.005, 0.995, 1.0}, faster));
  c.labelA = "nccl";
  c.labelB = "fitted <v2>";
  std::string md = comparisonToMarkdown(c);
  EXPECT_NE(md.find("# nccl-tests A/B: nccl (A) vs fitted <v2> (B)"), std::string::npos);
  EXPECT_NE(md.find("Inference range 16K..=64M (13 sizes): B is 11.3% faster"), std::string::npos) << md;
  EXPECT_NE(md.find("| **64K** |"), std::string::npos);
  nlohmann::json j = comparisonToJson(c);
  EXPECT_EQ(j["schema"], kCompareSchema);
  EXPECT_EQ(j["series"][0]["summary"]["verdict"], "faster");
  EXPECT_EQ(j["series"][0]["summary"]["faster"], 7);
  EXPECT_EQ(j["series"][0]["summary"]["sizes"].size(), 13u);
  EXPECT_EQ(j["series"][0]["sizes"].size(), 24u);
  EXPECT_EQ(j["options"]["interval"], "welch-t-log");
  EXPECT_EQ(j["options"]["range"][1], 64 * kM);
  EXPECT_EQ(comparisonToJson(c).dump(), j.dump());  // deterministic
  std::string svg = comparisonToSvg(c);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("fitted &lt;v2&gt;"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  size_t polylines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) ++polylines;
  EXPECT_EQ(polylines, 2u);
}

}  // namespace
}  // namespace nccl_roce::sweep

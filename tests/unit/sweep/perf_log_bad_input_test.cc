// Truncated logs, several collectives or processes in one file, and garbage: clear messages, partial
// results where they mean something, and never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "nccl-tests-integration/sweep/perf_log_json.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"
#include "tests/unit/sweep/sweep_test_data.h"

namespace nccl_roce::sweep {
namespace {

const char kHeader[] =
    "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   1001 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid   1002 on     node02 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
    "#\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong\n";

std::string row(uint64_t size, double time, double busbw = 1.0) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%12llu  %12llu     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  "
                "%6.2f       0\n",
                static_cast<unsigned long long>(size), static_cast<unsigned long long>(size / 4), time, busbw / 2,
                busbw, time, busbw / 2, busbw);
  return line;
}

const char kFooter[] = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1 \n#\n";

TEST(PerfLogBadInput, TruncatedMidRowKeepsTheRowsBeforeAndSaysWhere) {
  std::string text = std::string(kHeader) + row(1024, 20.5) + row(2048, 21.5);
  text += "        4096          1024     float     sum      -1    22.5";  // the process died while printing
  PerfLog log = parsePerfLog(text, "crashed.log");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].rows.size(), 2u);
  EXPECT_EQ(log.lines.malformed, 1);
  ASSERT_EQ(log.problems.size(), 1u);
  EXPECT_EQ(log.problems[0].line, 10);
  EXPECT_NE(log.problems[0].text.find("row has 6 fields, the table header has 13"), std::string::npos);
  ASSERT_EQ(log.runs[0].warnings.size(), 1u);
  EXPECT_NE(log.runs[0].warnings[0].find("no footer"), std::string::npos);
  EXPECT_NE(log.runs[0].warnings[0].find("2 rows kept"), std::string::npos);
  EXPECT_FALSE(log.runs[0].complete());
}

TEST(PerfLogBadInput, TruncatedInsideTheHeaderGivesARunWithoutRows) {
  std::string header(kHeader);
  PerfLog log = parsePerfLog(header.substr(0, header.find("#  Rank  1")), "early.log");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_TRUE(log.runs[0].rows.empty());
  EXPECT_EQ(log.runs[0].warnings, std::vector<std::string>{"no result rows"});
  EXPECT_EQ(log.runs[0].devices.size(), 1u);
}

TEST(PerfLogBadInput, ConcatenatedRunsOfAnOldEraSplitAtEachParameterLine) {
  std::string text = std::string(kHeader) + row(1024, 20.5) + kFooter + kHeader + row(1024, 19.5) + kFooter;
  PerfLog log = parsePerfLog(text, "two.log");
  ASSERT_EQ(log.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(*log.runs[0].rows[0].inPlace->timeUs, 20.5);
  EXPECT_DOUBLE_EQ(*log.runs[1].rows[0].inPlace->timeUs, 19.5);
  EXPECT_EQ(log.runs[1].firstLine, 12);  // 7 header lines, a row, 3 footer lines
}

TEST(PerfLogBadInput, RowsAfterAFooterStartANewRunThatSaysSo) {
  std::string text = std::string(kHeader) + row(1024, 20.5) + kFooter + row(2048, 30.0);
  PerfLog log = parsePerfLog(text, "after.log");
  ASSERT_EQ(log.runs.size(), 2u);
  EXPECT_EQ(log.runs[1].rows.size(), 1u);
  EXPECT_EQ(log.runs[1].devices.size(), 2u);  // header facts carried over
  ASSERT_FALSE(log.runs[1].warnings.empty());
  EXPECT_NE(log.runs[1].warnings[0].find("after the end of the previous table"), std::string::npos);
}

TEST(PerfLogBadInput, RowsWithoutAnyHeaderAreReadWithTheCurrentLayout) {
  PerfLog log = parsePerfLog(row(1024, 20.5) + row(2048, 21.5), "headless.log");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].rows.size(), 2u);
  EXPECT_NE(log.runs[0].warnings[0].find("before any table header"), std::string::npos);
}

TEST(PerfLogBadInput, SeveralNonMpiProcessesInOneFileAreRejected) {
  // srun -n 2 of a build without MPI: each process prints its own header as rank 0 of 1, then both print rows.
  std::string single =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid   1001 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n";
  std::string text = single + single + std::string(kHeader).substr(std::string(kHeader).find("#       size")) +
                     row(1048576, 5.1, 0.0) + row(1048576, 5.0, 0.0) + row(2097152, 9.9, 0.0) + row(2097152, 9.8, 0.0) +
                     kFooter + kFooter;
  PerfLog log = parsePerfLog(text, "srun.log");
  ASSERT_EQ(log.runs.size(), 2u);
  EXPECT_EQ(log.runs[0].warnings, std::vector<std::string>{"no result rows"});
  const PerfRun& run = log.runs[1];
  ASSERT_EQ(run.rejections.size(), 2u);
  EXPECT_NE(run.rejections[0].find("appears twice in a row"), std::string::npos);
  EXPECT_NE(run.rejections[1].find("busbw is 0 at 1048576 bytes"), std::string::npos);
}

TEST(PerfLogBadInput, ARankListedTwiceIsRejected) {
  std::string header(kHeader);
  std::string rank0 = "#  Rank  0 Group  0 Pid   1001 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n";
  header.insert(header.find("#  Rank  1"), rank0);
  PerfLog log = parsePerfLog(header + row(1024, 20.5) + kFooter, "dup.log");
  ASSERT_EQ(log.runs.size(), 1u);
  ASSERT_EQ(log.runs[0].rejections.size(), 1u);
  EXPECT_NE(log.runs[0].rejections[0].find("rank 0 is listed twice"), std::string::npos);
}

TEST(PerfLogBadInput, AnErrorLineFromNcclTestsBecomesAWarning) {
  PerfLog log = parsePerfLog(std::string(kHeader) + row(1024, 20.5) + "# error: unhandled system error\n", "e.log");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].warnings[0], "nccl-tests reported: unhandled system error");
}

TEST(PerfLogBadInput, EmptyAndTextWithoutNewline) {
  PerfLog empty = parsePerfLog("", "empty");
  EXPECT_TRUE(empty.runs.empty());
  EXPECT_EQ(empty.lines.total, 0);
  PerfLog noNewline = parsePerfLog(std::string(kHeader) + row(1024, 20.5).substr(0, row(1024, 20.5).size() - 1), "x");
  ASSERT_EQ(noNewline.runs.size(), 1u);
  EXPECT_EQ(noNewline.runs[0].rows.size(), 1u);
}

void expectLinesAddUp(const PerfLog& log) {
  const LineCounts& c = log.lines;
  EXPECT_EQ(c.total, c.rows + c.header + c.ncclLog + c.blank + c.unknown + c.malformed);
}

TEST(PerfLogBadInput, EveryLineIsCountedExactlyOnce) {
  for (const char* name :
       {"aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt", "gcp-a3mega_2node_h100x16_tcpxo_allreduce_default.txt",
        "xxrjun-cluster01_10node_h100x80_allreduce-allgather-reducescatter_default.txt"}) {
    SCOPED_TRACE(name);
    expectLinesAddUp(testing::parsePublishedLog(name));
  }
}

// Host names, device names and environment values are copied from the log and need not be UTF-8 (a Latin-1
// hostname; found by fuzz_nccl_tests_log, where nlohmann's dump threw and `sweep parse --format json` printed
// nothing). The JSON keeps the row data and marks the bad byte with U+FFFD.
TEST(PerfLogBadInput, BytesThatAreNotUtf8SurviveTheJsonOutput) {
  std::string text = std::string(kHeader) + row(1024, 20.5) + kFooter;
  text.replace(text.find("node01"), 6,
               "n\xC0"
               "de01");
  PerfLog log = parsePerfLog(text, "latin1.log");
  ASSERT_EQ(log.runs.size(), 1u);
  ASSERT_EQ(log.runs[0].devices.size(), 2u);
  EXPECT_EQ(log.runs[0].devices[0].host,
            "n\xC0"
            "de01");
  EXPECT_EQ(log.runs[0].nodes(), 2);
  std::string json;
  ASSERT_NO_THROW(json = dumpJson(perfLogsToJson({log})));
  EXPECT_NE(json.find("\"host\": \"n\xEF\xBF\xBD"
                      "de01\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"size\": 1024"), std::string::npos);
}

// Mutations of a real log (bytes flipped, lines cut, duplicated or dropped, random bytes): the parser
// returns, its counts add up, and every row it keeps has a time. Deterministic, so a failure reproduces.
TEST(PerfLogBadInput, MutatedRealLogsNeverCrashTheParser) {
  std::string original = testing::readPublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt");
  ASSERT_FALSE(original.empty());
  std::mt19937_64 rng(20240718);
  for (int round = 0; round < 400; ++round) {
    std::string text = original;
    int edits = 1 + static_cast<int>(rng() % 20);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 5) {
        case 0:
          text[at] = static_cast<char>(rng() & 0xff);
          break;
        case 1:
          text.erase(at, rng() % 200);
          break;
        case 2:
          text.insert(at, text.substr(rng() % text.size(), rng() % 300));
          break;
        case 3:
          text.insert(at, std::string(1 + rng() % 8, static_cast<char>("#[]:<> \n0123456789.-e"[rng() % 22])));
          break;
        default:
          text.resize(at);
          break;
      }
    }
    PerfLog log = parsePerfLog(text, "mutated");
    expectLinesAddUp(log);
    for (const PerfRun& run : log.runs) {
      for (const PerfRow& r : run.rows) ASSERT_TRUE(r.inPlace && r.inPlace->timeUs);
    }
  }
  std::string noise;
  for (int i = 0; i < 200000; ++i) noise += static_cast<char>(rng() & 0xff);
  expectLinesAddUp(parsePerfLog(noise, "noise"));
  expectLinesAddUp(parsePerfLog(std::string(1 << 20, '#'), "one long line"));
}

}  // namespace
}  // namespace nccl_roce::sweep

// Every layout nccl-tests has printed (NVIDIA/nccl-tests' src/common.cu, and src/util.cu since 2025-10, through
// its history), written out the way its printf formats produce them, and what launchers and NCCL add around the
// table.
#include <gtest/gtest.h>

#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::sweep {
namespace {

PerfRun onlyRun(const std::string& text) {
  PerfLog log = parsePerfLog(text, "test");
  EXPECT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.lines.malformed, 0) << (log.problems.empty() ? "" : log.problems.front().text);
  return log.runs.empty() ? PerfRun() : log.runs.front();
}

const char kCurrentHeader[] =
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n";

TEST(PerfLogLayouts, Era2019AllReduceWithMaxErrorColumn) {
  PerfRun run = onlyRun(
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n"
      "#\n"
      "# Using devices\n"
      "#   Rank  0 Pid  12345 on     node01 device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid  12345 on     node01 device  1 [0x0a] Tesla V100-SXM2-32GB\n"
      "#\n"
      "#                                                     out-of-place                       in-place          \n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
      "           8             2   float     sum    28.91    0.00    0.00  0e+00    28.53    0.00    0.00  0e+00\n"
      "     1048576        262144   float     sum    60.12   17.44   17.44  2e-07    59.88   17.51   17.51  2e-07\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 8.7375 \n"
      "#\n");
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.parameters.iters, 20);
  EXPECT_FALSE(run.parameters.aggIters);  // this era did not print it
  ASSERT_EQ(run.devices.size(), 2u);
  EXPECT_FALSE(run.devices[1].group);
  EXPECT_EQ(run.devices[1].pid, 12345);
  EXPECT_EQ(run.devices[1].busId, "0x0a");
  ASSERT_EQ(run.rows.size(), 2u);
  const PerfRow& row = run.rows[1];
  EXPECT_EQ(row.redop, "sum");
  EXPECT_FALSE(row.root);
  EXPECT_DOUBLE_EQ(*row.outOfPlace->timeUs, 60.12);
  EXPECT_FALSE(row.outOfPlace->wrong);  // a deviation, not a count
  EXPECT_DOUBLE_EQ(*row.outOfPlace->maxError, 2e-07);
  EXPECT_DOUBLE_EQ(*row.inPlace->busBwGBs, 17.51);
  EXPECT_TRUE(run.complete());
}

TEST(PerfLogLayouts, Era2019AllGatherWithoutRedopAndUncheckedResults) {
  PerfRun run = onlyRun(
      "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     1048576        131072   float    45.10   23.25   20.34    N/A    44.90   23.35   20.43    N/A\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].redop, "");
  EXPECT_FALSE(run.rows[0].root);
  EXPECT_FALSE(run.rows[0].outOfPlace->maxError);
  EXPECT_FALSE(run.rows[0].inPlace->wrong);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->timeUs, 44.90);
}

TEST(PerfLogLayouts, Era2019BroadcastWithRootColumn) {
  PerfRun run = onlyRun(
      "#       size         count    type    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     1048576        262144   float       3    30.02   34.93   34.93  0e+00    29.80   35.19   35.19  0e+00\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].root, 3);
  EXPECT_EQ(run.rows[0].redop, "");
}

TEST(PerfLogLayouts, Era2017PrintedMillisecondsAndNoHashOnTheParameterLine) {
  PerfRun run = onlyRun(
      "nThread 1 nGpus 4 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 "
      "validation: 1 \n"
      "# Using devices\n"
      "#   Rank  0 on       dgx1 device  0 [0x06] Tesla P100-SXM2-16GB\n"
      "#                                          out-of-place                    in-place\n"
      "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n"
      "     1048576        262144   float     sum    0.101  10.38  15.57    5e-07    0.100  10.49  15.73    5e-07\n");
  EXPECT_EQ(run.parameters.gpusPerThread, 4);
  ASSERT_EQ(run.devices.size(), 1u);
  EXPECT_EQ(run.devices[0].host, "dgx1");
  EXPECT_FALSE(run.devices[0].pid);
  EXPECT_EQ(run.devices[0].name, "Tesla P100-SXM2-16GB");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->timeUs, 101.0);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->timeUs, 100.0);
  EXPECT_EQ(run.rows[0].redop, "sum");
}

TEST(PerfLogLayouts, CurrentLayoutWithChecksOffPrintsNA) {
  PerfRun run = onlyRun(std::string(kCurrentHeader) +
                        "     1048576        262144     float     sum      -1    21.47   48.84   85.47     N/A    "
                        "20.98   49.98   87.46     N/A\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_FALSE(run.rows[0].outOfPlace->wrong);
  EXPECT_FALSE(run.rows[0].inPlace->wrong);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->busBwGBs, 87.46);
}

TEST(PerfLogLayouts, GFormattedCountsAndExponentTimesAndOverflowingBandwidth) {
  PerfRun run = onlyRun(std::string(kCurrentHeader) +
                        " 17179869184    4294967296     float     sum      -1  1.2e+06   14.32   26.84   1e+06  "
                        "105854  263017.30  263017.30       0\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->timeUs, 1.2e6);
  EXPECT_EQ(run.rows[0].outOfPlace->wrong, 1000000);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->algBwGBs, 263017.30);
  ASSERT_EQ(run.warnings.size(), 2u);  // failed validation, and no footer
  EXPECT_NE(run.warnings[0].find("failed validation"), std::string::npos);
}

TEST(PerfLogLayouts, TimestampColumn) {
  PerfRun run = onlyRun(
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
      "busbw  #wrong           timestamp\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
      "(GB/s)          %Y-%m-%d %H:%M:%S\n"
      "        1024           256     float     sum      -1    17.14    0.06    0.10       0    16.43    0.06    "
      "0.11       0  2025-10-20 14:03:11\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].timestamp, "2025-10-20 14:03:11");
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->timeUs, 16.43);
}

TEST(PerfLogLayouts, CpuTimeColumn) {
  PerfRun run = onlyRun(
      "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  cputime   algbw   "
      "busbw  #wrong\n"
      "        1024           256     float     sum      -1    19.02    0.05    0.09       0    18.11    0.06    "
      "0.10       0\n");
  EXPECT_TRUE(run.cpuTime);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->timeUs, 19.02);
}

TEST(PerfLogLayouts, PerIterationColumns) {
  PerfRun run = onlyRun(
      "#                                         out-of-place (+ per-iteration)                                "
      "in-place (+ per-iteration)\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%\n"
      "     1048576        262144     float     sum      -1    21.47   48.84   85.47       0    20.10    25.31    "
      "25.31     4.20    20.98   49.98   87.46       0    20.02    23.90    23.90     3.10\n");
  ASSERT_EQ(run.rows.size(), 1u);
  const PerfHalf& in = *run.rows[0].inPlace;
  EXPECT_DOUBLE_EQ(*in.timeUs, 20.98);
  EXPECT_DOUBLE_EQ(*in.iterMinUs, 20.02);
  EXPECT_DOUBLE_EQ(*in.iterMaxUs, 23.90);
  EXPECT_DOUBLE_EQ(*in.iterP99Us, 23.90);
  EXPECT_DOUBLE_EQ(*in.iterCvPct, 3.10);
  EXPECT_EQ(in.wrong, 0);
}

TEST(PerfLogLayouts, UnknownExtraColumnsAreSkippedByName) {
  PerfRun run = onlyRun(
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0 side_work: 1 work_sms: 4 direction: H2D\n"
      "#       size         count      type   redop    root     time   algbw   busbw  sidebw  #wrong     time   "
      "algbw   busbw  sidebw  #wrong\n"
      "     1048576        262144     float     sum      -1    25.10   41.78   73.11   12.40       0    24.80   "
      "42.28   73.99   12.51       0\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->busBwGBs, 73.11);
  EXPECT_EQ(run.rows[0].outOfPlace->wrong, 0);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->timeUs, 24.80);
  EXPECT_EQ(run.columns[8], "sidebw");
}

TEST(PerfLogLayouts, InPlaceOnlyRowsFromTraceReplay) {
  PerfRun run = onlyRun(std::string(kCurrentHeader) +
                        "        4096          1024     float     sum      -1                                    "
                        "16.46    0.25    0.44       0\n");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_FALSE(run.rows[0].outOfPlace);
  EXPECT_DOUBLE_EQ(*run.rows[0].inPlace->timeUs, 16.46);
}

TEST(PerfLogLayouts, SizeZeroRowsOfAllGatherOnEightRanks) {
  PerfRun run = onlyRun(std::string(kCurrentHeader) +
                        "           0             0     float    none      -1     0.17    0.00    0.00       0     "
                        "0.16    0.00    0.00       0\n"
                        "          32             1     float    none      -1    10.41    0.00    0.00       0     "
                        "9.96    0.00    0.00       0\n");
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].size, 0u);
  EXPECT_EQ(run.rows[0].count, 0u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->timeUs, 0.17);
}

TEST(PerfLogLayouts, BlankLinesAndNcclInfoLinesInsideTheTable) {
  PerfLog log = parsePerfLog(std::string(kCurrentHeader) +
                                 "        1024           256     float     sum      -1    17.14    0.06    0.10       "
                                 "0    16.43    0.06    0.11       0\n"
                                 "\n"
                                 "     \t  \n"
                                 "node01:4242:4300 [0] NCCL INFO 2048 Bytes -> Algo 1 proto 0 time 12.5\n"
                                 "        2048           512     float     sum      -1    17.14    0.12    0.21       "
                                 "0    16.43    0.12    0.22       0\n"
                                 "# Out of bounds values : 0 OK\n"
                                 "# Avg bus bandwidth    : 0.16 \n",
                             "test");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].rows.size(), 2u);
  EXPECT_EQ(log.lines.blank, 2);
  EXPECT_EQ(log.lines.ncclLog, 1);
  EXPECT_TRUE(log.runs[0].warnings.empty());
}

TEST(PerfLogLayouts, TimestampOutputPrefixesAndSrunLabels) {
  PerfRun run = onlyRun(
      "Thu Jul 18 15:41:05 2024<stdout>:#       size         count      type   redop    root     time   algbw   "
      "busbw  #wrong     time   algbw   busbw  #wrong\n"
      "Thu Jul 18 15:41:05 2024<stdout>:        1024           256     float     sum      -1Thu Jul 18 15:41:06 "
      "2024<stdout>:    17.14    0.06    0.10       0    16.43    0.06    0.11       0\n"
      "0:         2048           512     float     sum      -1    17.14    0.12    0.21       0    16.43    0.12    "
      "0.22       0\n"
      "[12345,3]<stderr>:        4096          1024     float     sum      -1    18.00    0.23    0.40       0    "
      "17.90    0.23    0.40       0\n");
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_EQ(run.rows[0].size, 1024u);
  EXPECT_DOUBLE_EQ(*run.rows[0].outOfPlace->timeUs, 17.14);
  EXPECT_EQ(run.rows[1].size, 2048u);
  EXPECT_EQ(run.rows[2].size, 4096u);
}

TEST(PerfLogLayouts, RunCyclesAndSeveralTypesAreNotDuplicates) {
  std::string row1 =
      "        1024           256     float     sum      -1    17.14    0.06    0.10       0    16.43    "
      "0.06    0.11       0\n";
  std::string row1d =
      "        1024           128    double     sum      -1    17.50    0.06    0.10       0    16.90    "
      "0.06    0.11       0\n";
  std::string row2 =
      "        2048           512     float     sum      -1    17.14    0.12    0.21       0    16.43    "
      "0.12    0.22       0\n";
  PerfRun run = onlyRun(std::string(kCurrentHeader) + row1 + row1d + row2 + row1 + row1d + row2);
  EXPECT_EQ(run.rows.size(), 6u);
  EXPECT_TRUE(run.rejections.empty()) << run.rejections.front();
}

TEST(PerfLogLayouts, RcclVersionLine) {
  PerfRun run = onlyRun("RCCL version 2.18.3+hip6.0 \n" + std::string(kCurrentHeader) +
                        "        1024           256     float     sum      -1    17.14    0.06    0.10       0    "
                        "16.43    0.06    0.11       0\n");
  EXPECT_EQ(run.ncclVersion, "2.18.3");
  EXPECT_EQ(run.ncclVersionDetail, "2.18.3+hip6.0");
}

TEST(PerfLogLayouts, RunnerEnvironmentAndCommandLines) {
  PerfRun run = onlyRun(
      "# nccl-roce-env: NCCL_ALGO=Ring\n"
      "# nccl-roce-env: NCCL_PROTO=LL128\n"
      "# nccl-roce-cmd: mpirun -np 16 -x NCCL_ALGO -x NCCL_PROTO /opt/nccl-tests/build/all_reduce_perf -b 8 -e 64M\n" +
      std::string(kCurrentHeader) +
      "        1024           256     float     sum      -1    17.14    0.06    0.10       0    16.43    0.06    0.11  "
      "     0\n");
  EXPECT_EQ(run.environment.at("NCCL_ALGO"), "Ring");
  EXPECT_EQ(run.environment.at("NCCL_PROTO"), "LL128");
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.collectiveSource, CollectiveSource::kCommand);
}

TEST(PerfLogLayouts, NcclSetByEnvironmentLines) {
  PerfRun run = onlyRun(
      "node01:4242:4242 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n"
      "node01:4242:4242 [0] NCCL INFO NCCL_MIN_NCHANNELS set by environment to 16.\n" +
      std::string(kCurrentHeader) +
      "        1024           256     float     sum      -1    17.14    0.06    0.10       0    16.43    0.06    0.11  "
      "     0\n");
  EXPECT_EQ(run.environment.at("NCCL_ALGO"), "Tree");
  EXPECT_EQ(run.environment.at("NCCL_MIN_NCHANNELS"), "16");
}

TEST(PerfLogLayouts, WindowsLineEndings) {
  std::string text = std::string(kCurrentHeader) +
                     "        1024           256     float     sum      -1    17.14    0.06    0.10       0    16.43   "
                     " 0.06    0.11       0\n";
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  PerfRun run = onlyRun(crlf);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(*run.rows[0].inPlace->wrong, 0);
}

}  // namespace
}  // namespace nccl_roce::sweep

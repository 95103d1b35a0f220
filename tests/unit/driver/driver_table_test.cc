// The driver prints nccl-tests' table: the same number formatting, and output our own parser (and so
// `sweep compare` and `sweep fit`) reads with every fact intact. No GPU needed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nccl-tests-integration/driver/perf_table.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::driver {
namespace {

using ::testing::HasSubstr;

TEST(DriverTable, NumbersAreFormattedLikeNcclTestsGetFloatStr) {
  // time: width 7; bandwidths: width 6. Values from real nccl-tests tables.
  EXPECT_EQ(fitFloat(34.98, 7), "34.98");
  EXPECT_EQ(fitFloat(1351.284, 7), "1351.28");
  EXPECT_EQ(fitFloat(10329.04, 7), "10329.0");
  EXPECT_EQ(fitFloat(40838.94, 7), "40838.9");
  EXPECT_EQ(fitFloat(105854.3, 7), "105854");
  EXPECT_EQ(fitFloat(1234567.8, 7), "1234568");
  EXPECT_EQ(fitFloat(12345678.9, 7), "1.2e+07");
  EXPECT_EQ(fitFloat(0.001, 6), "0.00");
  EXPECT_EQ(fitFloat(487.93, 6), "487.93");
  EXPECT_EQ(fitFloat(1234.56, 6), "1234.6");
  EXPECT_EQ(fitFloat(263017.3, 6), "263017");
  EXPECT_EQ(fitFloat(2630173.0, 6), "3e+06");
}

TEST(DriverTable, BandwidthsFollowNcclTestsAllReduceDefinitions) {
  // 1 MiB in 100 us: algbw 10.49 GB/s; busbw = algbw x 2(n-1)/n: x1 for 2 ranks, x1.875 for 16.
  EXPECT_DOUBLE_EQ(algBandwidthGBs(1048576, 100.0), 10.48576);
  EXPECT_DOUBLE_EQ(busBandwidthGBs(1048576, 100.0, 2), 10.48576);
  EXPECT_DOUBLE_EQ(busBandwidthGBs(1048576, 100.0, 16), 10.48576 * 1.875);
  EXPECT_EQ(algBandwidthGBs(8, 0.0), 0.0);
}

DriverOptions sweepOptions() {
  DriverOptions o;
  o.minBytes = 8;
  o.maxBytes = 1 << 20;
  o.stepIsFactor = true;
  o.stepFactor = 2;
  o.iters = 20;
  o.warmupIters = 5;
  o.nranks = 2;
  return o;
}

std::vector<RankDevice> twoRanksOnOneGpu() {
  // Two processes on one GPU of one host, each with its own NCCL_HOSTID (the driver prints that as the host).
  return {{0, 4242, "gpu7-rank0", 0, "0000:19:00", "NVIDIA H100 80GB HBM3"},
          {1, 4243, "gpu7-rank1", 0, "0000:19:00", "NVIDIA H100 80GB HBM3"}};
}

TEST(DriverTable, OutputReadsBackThroughTheSweepParser) {
  DriverOptions o = sweepOptions();
  std::vector<MeasuredSize> rows = {
      {8, {22.514, 0}, {21.987, 0}}, {65536, {31.2, 0}, {30.75, 2}}, {1048576, {105.34, 0}, {104.99, 0}}};
  std::string text =
      tableHeader(o, "NCCL version 2.28.9 (nccl-roce-allreduce-driver, CUDA runtime 13.0)", twoRanksOnOneGpu());
  for (const MeasuredSize& row : rows) text += tableRow(row, DataType::kFloat, 2);
  text += tableFooter(rows, 2);

  sweep::PerfLog log = sweep::parsePerfLog(text, "driver.log");
  ASSERT_EQ(log.runs.size(), 1u) << text;
  const sweep::PerfRun& run = log.runs[0];
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.collectiveSource, sweep::CollectiveSource::kPrinted);
  EXPECT_EQ(run.ncclVersion, "2.28.9");
  EXPECT_EQ(run.ranks(), std::optional<int>(2));
  EXPECT_EQ(run.nodes(), std::optional<int>(2));  // NCCL_HOSTID makes each rank a node
  EXPECT_EQ(run.parameters.minBytes, std::optional<uint64_t>(8));
  EXPECT_EQ(run.parameters.stepFactor, std::optional<uint64_t>(2));
  EXPECT_EQ(run.parameters.warmupIters, std::optional<int64_t>(5));
  EXPECT_TRUE(run.rejections.empty()) << run.rejections.front();
  EXPECT_TRUE(run.concluded);
  ASSERT_TRUE(run.footer);
  EXPECT_EQ(run.footer->outOfBounds, std::optional<int64_t>(2));
  EXPECT_EQ(run.footer->outOfBoundsOk, std::optional<bool>(false));
  EXPECT_EQ(log.lines.unknown, 0);
  EXPECT_EQ(log.lines.malformed, 0);

  ASSERT_EQ(run.rows.size(), 3u);
  const sweep::PerfRow& small = run.rows[0];
  EXPECT_EQ(small.size, 8u);
  EXPECT_EQ(small.count, 2u);
  EXPECT_EQ(small.type, "float");
  EXPECT_EQ(small.redop, "sum");
  EXPECT_EQ(small.root, std::optional<int64_t>(-1));
  EXPECT_DOUBLE_EQ(*small.outOfPlace->timeUs, 22.51);  // printed with two decimals
  EXPECT_DOUBLE_EQ(*small.inPlace->timeUs, 21.99);
  EXPECT_EQ(run.rows[1].inPlace->wrong, std::optional<int64_t>(2));
  const sweep::PerfRow& large = run.rows[2];
  EXPECT_EQ(large.count, 262144u);
  EXPECT_DOUBLE_EQ(*large.outOfPlace->timeUs, 105.34);
  EXPECT_DOUBLE_EQ(*large.outOfPlace->algBwGBs, 9.95);  // 1048576 / 105.34 us
  EXPECT_DOUBLE_EQ(*large.outOfPlace->busBwGBs, 9.95);  // x 2(2-1)/2
  EXPECT_EQ(large.outOfPlace->wrong, std::optional<int64_t>(0));
}

TEST(DriverTable, UncheckedRunsPrintNotApplicableAndByteSteps) {
  DriverOptions o = sweepOptions();
  o.check = false;
  o.stepIsFactor = false;
  o.stepBytes = 1 << 20;
  std::string header = tableHeader(o, "", twoRanksOnOneGpu());
  EXPECT_THAT(header, HasSubstr("step: 1048576(bytes)"));
  EXPECT_THAT(header, HasSubstr("validation: 0"));
  std::vector<MeasuredSize> rows = {{1048576, {100.0, -1}, {99.0, -1}}};
  std::string text = header + tableRow(rows[0], DataType::kDouble, 2) + tableFooter(rows, 2);
  sweep::PerfLog log = sweep::parsePerfLog(text, "unchecked.log");
  ASSERT_EQ(log.runs.size(), 1u);
  ASSERT_EQ(log.runs[0].rows.size(), 1u);
  const sweep::PerfRow& row = log.runs[0].rows[0];
  EXPECT_EQ(row.type, "double");
  EXPECT_EQ(row.count, 131072u);
  EXPECT_FALSE(row.outOfPlace->wrong);
  EXPECT_FALSE(row.inPlace->wrong);
  EXPECT_EQ(log.runs[0].parameters.stepBytes, std::optional<uint64_t>(1048576));
}

TEST(DriverTable, AverageBusBandwidthIsTheMeanOverEveryPrintedHalf) {
  // Two rows at 16 ranks: busbw of 1 MiB at 100 us and 50 us (both halves) -> mean of 19.66, 19.66, 39.32, 39.32.
  std::vector<MeasuredSize> rows = {{1048576, {100.0, 0}, {100.0, 0}}, {1048576, {50.0, 0}, {50.0, 0}}};
  std::string footer = tableFooter(rows, 16);
  EXPECT_THAT(footer, HasSubstr("# Out of bounds values : 0 OK\n"));
  EXPECT_THAT(footer, HasSubstr("# Avg bus bandwidth    : 29.4912 \n"));
  EXPECT_THAT(footer, HasSubstr("# Collective test concluded: all_reduce_perf\n"));
}

}  // namespace
}  // namespace nccl_roce::driver

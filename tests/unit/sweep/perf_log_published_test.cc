// The parser against every published log in tests/data/nccl-tests (verbatim copies of public logs, each file's
// source and commit in INDEX.md there). Expected values were copied by hand from the files, a few rows per file.
#include <gtest/gtest.h>

#include "tests/unit/sweep/sweep_test_data.h"

namespace nccl_roce::sweep {
namespace {

using testing::expectRow;
using testing::parsePublishedLog;

void expectCleanRun(const PerfRun& run) {
  EXPECT_TRUE(run.rejections.empty()) << run.rejections.front();
  EXPECT_TRUE(run.warnings.empty()) << run.warnings.front();
  EXPECT_TRUE(run.complete());
}

TEST(PublishedLogs, AwsP5DefaultRunAWithTagOutputPrefixesInsideRows) {
  PerfLog log = parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.collectiveSource, CollectiveSource::kInferred);  // this era printed no test name
  EXPECT_EQ(run.ranks(), 16);
  EXPECT_EQ(run.nodes(), 2);
  EXPECT_EQ(run.ncclVersion, "2.22.3");
  EXPECT_EQ(run.ncclVersionDetail, "2.22.3+cuda12.2");
  EXPECT_EQ(run.testsVersion, "");
  EXPECT_EQ(run.parameters.threads, 1);
  EXPECT_EQ(run.parameters.gpusPerThread, 1);
  EXPECT_EQ(run.parameters.minBytes, 8u);
  EXPECT_EQ(run.parameters.maxBytes, 17179869184u);
  EXPECT_EQ(run.parameters.stepFactor, 2u);
  EXPECT_EQ(run.parameters.warmupIters, 5);
  EXPECT_EQ(run.parameters.iters, 100);
  EXPECT_EQ(run.parameters.aggIters, 1);
  EXPECT_EQ(run.parameters.validation, 1);
  EXPECT_EQ(run.parameters.graph, 0);
  EXPECT_EQ(run.environment.at("NCCL_BUFFSIZE"), "8388608");
  EXPECT_EQ(run.environment.at("NCCL_P2P_NET_CHUNKSIZE"), "524288");
  ASSERT_EQ(run.devices.size(), 16u);
  EXPECT_EQ(run.devices[8].rank, 8);
  EXPECT_EQ(run.devices[8].group, 0);
  EXPECT_EQ(run.devices[8].pid, 25);
  EXPECT_EQ(run.devices[8].host, "test-nccl-worker-1");
  EXPECT_EQ(run.devices[8].device, 0);
  EXPECT_EQ(run.devices[8].busId, "0x53");
  EXPECT_EQ(run.devices[8].name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(run.rows.size(), 32u);
  expectRow(run, {39, 8, 2, "float", "sum", -1, 85.70, 0.00, 0.00, 0, 74.97, 0.00, 0.00, 0});
  expectRow(run, {49, 8192, 2048, "float", "sum", -1, 95.51, 0.09, 0.16, 0, 82.54, 0.10, 0.19, 0});
  expectRow(run,
            {70, 17179869184u, 4294967296u, "float", "sum", -1, 66023, 260.21, 487.90, 0, 65990, 260.34, 488.14, 0});
  ASSERT_TRUE(run.footer);
  EXPECT_EQ(run.footer->outOfBounds, 0);
  EXPECT_EQ(run.footer->outOfBoundsOk, true);
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 124.584);
  // 8 META lines not understood; nThread, '#' lines, 16 devices, table header (3) and footer (3) are header.
  EXPECT_EQ(log.lines.total, 74);
  EXPECT_EQ(log.lines.unknown, 8);
  EXPECT_EQ(log.lines.header, 26);
  EXPECT_EQ(log.lines.ncclLog, 7);
  EXPECT_EQ(log.lines.rows, 32);
  EXPECT_EQ(log.lines.blank, 1);  // a lone "[1,0]<stdout>:" tag
  EXPECT_EQ(log.lines.malformed, 0);
  EXPECT_TRUE(log.problems.empty());
}

TEST(PublishedLogs, AwsP5DefaultRunB) {
  PerfLog log = parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_default-run-b.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.ncclVersion, "2.22.3");
  ASSERT_EQ(run.rows.size(), 32u);
  expectRow(run, {39, 8, 2, "float", "sum", -1, 85.14, 0.00, 0.00, 0, 62.82, 0.00, 0.00, 0});
  expectRow(run, {56, 1048576, 262144, "float", "sum", -1, 122.7, 8.55, 16.03, 0, 122.3, 8.58, 16.08, 0});
  expectRow(run,
            {70, 17179869184u, 4294967296u, "float", "sum", -1, 66108, 259.88, 487.27, 0, 66143, 259.74, 487.01, 0});
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 124.196);
}

TEST(PublishedLogs, AwsP5OfiTunerWithBareNcclVersionLine) {
  PerfLog log = parsePublishedLog("aws-p5_2node_h100x16_efa_allreduce_ofi-tuner.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.ncclVersion, "2.20.3");
  EXPECT_EQ(run.ncclVersionDetail, "2.20.3+cuda12.2");
  ASSERT_EQ(run.rows.size(), 32u);
  expectRow(run, {38, 8, 2, "float", "sum", -1, 65.43, 0.00, 0.00, 0, 64.78, 0.00, 0.00, 0});
  expectRow(run, {51, 65536, 16384, "float", "sum", -1, 135.8, 0.48, 0.90, 0, 103.3, 0.63, 1.19, 0});
  expectRow(run,
            {69, 17179869184u, 4294967296u, "float", "sum", -1, 66154, 259.69, 486.93, 0, 66064, 260.05, 487.59, 0});
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 124.343);
}

TEST(PublishedLogs, GcpA3MegaInsideMarkdownProse) {
  PerfLog log = parsePublishedLog("gcp-a3mega_2node_h100x16_tcpxo_allreduce_default.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.ranks(), 16);
  EXPECT_EQ(run.nodes(), 2);
  EXPECT_EQ(run.ncclVersion, "");  // not printed
  EXPECT_EQ(run.devices[0].busId, "0000:04:00");
  EXPECT_EQ(run.devices[0].host, "ztan-mig-235z");
  EXPECT_EQ(run.devices[0].pid, 6899);
  EXPECT_EQ(run.parameters.iters, 20);
  ASSERT_EQ(run.rows.size(), 31u);
  expectRow(run, {38, 8, 2, "float", "sum", -1, 135.8, 0.00, 0.00, 0, 123.5, 0.00, 0.00, 0});
  expectRow(run, {51, 65536, 16384, "float", "sum", -1, 159.4, 0.41, 0.77, 0, 157.6, 0.42, 0.78, 0});
  expectRow(run,
            {68, 8589934592u, 2147483648u, "float", "sum", -1, 47535, 180.71, 338.82, 0, 47743, 179.92, 337.35, 0});
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 70.742);
  EXPECT_GT(log.lines.unknown, 40);  // the markdown interpretation around the table
  EXPECT_EQ(log.lines.malformed, 0);
}

TEST(PublishedLogs, NvidiaDgxcWithSideWorkParameters) {
  PerfLog log = parsePublishedLog("nvidia-dgxc_1node_h100x8_nvlink_allreduce_default.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.ranks(), 8);
  EXPECT_EQ(run.nodes(), 1);
  EXPECT_EQ(run.parameters.maxBytes, 17179869184u);
  EXPECT_EQ(run.parameters.graph, 0);
  EXPECT_EQ(run.devices[7].busId, "0000:e4:00");
  EXPECT_EQ(run.devices[7].pid, 1005906);
  ASSERT_EQ(run.rows.size(), 32u);
  expectRow(run, {22, 8, 2, "float", "sum", -1, 13.67, 0.00, 0.00, 0, 13.03, 0.00, 0.00, 0});
  expectRow(run, {35, 65536, 16384, "float", "sum", -1, 19.54, 3.35, 5.87, 0, 18.85, 3.48, 6.08, 0});
  expectRow(run,
            {52, 8589934592u, 2147483648u, "float", "sum", -1, 31307, 274.38, 480.16, 0, 31328, 274.19, 479.84, 0});
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 159.151);
}

TEST(PublishedLogs, OciRoceAfterAnSshWarning) {
  PerfLog log = parsePublishedLog("oci-bm.gpu4.8_2node_a100x16_roce_allreduce_default.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const PerfRun& run = log.runs[0];
  expectCleanRun(run);
  EXPECT_EQ(run.ranks(), 16);
  EXPECT_EQ(run.nodes(), 2);
  EXPECT_EQ(run.devices[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(run.devices[0].busId, "0x0f");
  ASSERT_EQ(run.rows.size(), 31u);
  expectRow(run, {32, 8, 2, "float", "sum", -1, 36.47, 0.00, 0.00, 0, 34.74, 0.00, 0.00, 0});
  expectRow(run, {45, 65536, 16384, "float", "sum", -1, 51.69, 1.27, 2.38, 0, 50.09, 1.31, 2.45, 0});
  expectRow(run,
            {62, 8589934592u, 2147483648u, "float", "sum", -1, 67689, 126.90, 237.94, 0, 67811, 126.68, 237.52, 0});
  EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, 66.4834);
  EXPECT_EQ(log.lines.unknown, 8);  // 7 META lines and the ssh warning before the header
}

TEST(PublishedLogs, XxrjunTenNodesOneGpuEachThreeCollectives) {
  PerfLog log =
      parsePublishedLog("xxrjun-cluster01_10node_h100x10_1gpu-per-node_allreduce-allgather-reducescatter_default.txt");
  ASSERT_EQ(log.runs.size(), 3u);
  const char* collectives[] = {"all_reduce", "all_gather", "reduce_scatter"};
  const double averages[] = {47.8165, 46.7949, 47.1335};
  for (size_t i = 0; i < 3; ++i) {
    const PerfRun& run = log.runs[i];
    expectCleanRun(run);
    EXPECT_EQ(run.collective, collectives[i]);
    EXPECT_EQ(run.collectiveSource, CollectiveSource::kPrinted);
    EXPECT_TRUE(run.concluded);
    EXPECT_EQ(run.testsVersion, "2.17.8");
    EXPECT_EQ(run.ncclVersion, "2.29.2");  // from nccl-library=22902
    EXPECT_EQ(run.ranks(), 10);
    EXPECT_EQ(run.nodes(), 10);
    EXPECT_EQ(run.parameters.minBytes, 33554432u);
    EXPECT_EQ(run.parameters.maxBytes, 68719476736u);
    EXPECT_EQ(run.reducedMaxBytes, 26549638485u);
    EXPECT_EQ(run.rows.size(), 10u);
    EXPECT_DOUBLE_EQ(*run.footer->avgBusBwGBs, averages[i]);
  }
  expectRow(log.runs[0],
            {28, 33554432, 4194304, "double", "sum", -1, 1405.25, 23.88, 42.98, 0, 1406.35, 23.86, 42.95, 0});
  expectRow(log.runs[0],
            {37, 17179869184u, 2147483648u, "double", "sum", -1, 632480, 27.16, 48.89, 0, 632577, 27.16, 48.89, 0});
  expectRow(log.runs[1],
            {65, 33554400, 419430, "double", "none", -1, 721.94, 46.48, 41.83, 0, 687.61, 48.80, 43.92, 0});
  expectRow(log.runs[2],
            {111, 17179869120u, 214748364, "double", "sum", -1, 316586, 54.27, 48.84, 0, 317130, 54.17, 48.76, 0});
}

TEST(PublishedLogs, XxrjunEightyRanks) {
  PerfLog log = parsePublishedLog("xxrjun-cluster01_10node_h100x80_allreduce-allgather-reducescatter_default.txt");
  ASSERT_EQ(log.runs.size(), 3u);
  for (const PerfRun& run : log.runs) {
    expectCleanRun(run);
    EXPECT_EQ(run.ranks(), 80);
    EXPECT_EQ(run.nodes(), 10);
  }
  expectRow(log.runs[0], {107, 17179869184u, 2147483648u, "double", "sum", -1, 105854, 162.30, 320.54, 0, 105146,
                          163.39, 322.70, 0});
  expectRow(log.runs[1],
            {205, 33553920, 52428, "double", "none", -1, 682.20, 49.19, 48.57, 0, 672.05, 49.93, 49.30, 0});
  expectRow(log.runs[2],
            {321, 17179868160u, 26843544, "double", "sum", -1, 52458.7, 327.49, 323.40, 0, 52777.8, 325.51, 321.44, 0});
  EXPECT_DOUBLE_EQ(*log.runs[2].footer->avgBusBwGBs, 216.683);
}

TEST(PublishedLogs, XxrjunOneNode) {
  PerfLog log = parsePublishedLog("xxrjun-cluster01_1node_h100x8_allreduce-allgather-reducescatter_default.txt");
  ASSERT_EQ(log.runs.size(), 3u);
  for (const PerfRun& run : log.runs) {
    expectCleanRun(run);
    EXPECT_EQ(run.ranks(), 8);
    EXPECT_EQ(run.nodes(), 1);
  }
  expectRow(log.runs[0],
            {26, 33554432, 4194304, "double", "sum", -1, 182.87, 183.49, 321.10, 0, 182.88, 183.48, 321.08, 0});
  expectRow(log.runs[1], {70, 17179869184u, 268435456, "double", "none", -1, 41542.0, 413.55, 361.86, 0, 41068.7,
                          418.32, 366.03, 0});
  expectRow(log.runs[2],
            {101, 1073741824, 16777216, "double", "sum", -1, 2741.51, 391.66, 342.70, 0, 2734.35, 392.69, 343.60, 0});
}

TEST(PublishedLogs, TheTunerExampleCsvIsNotNcclTestsOutput) {
  PerfLog log = parsePublishedLog("nvidia-nccl_tuner-example_sample_performance_data_SYNTHETIC.txt");
  EXPECT_TRUE(log.runs.empty());
  EXPECT_EQ(log.lines.total, 28);
  EXPECT_EQ(log.lines.unknown, 28);
  EXPECT_EQ(log.lines.malformed, 0);
  EXPECT_EQ(log.unknownExamples.size(), 5u);
}

}  // namespace
}  // namespace nccl_roce::sweep

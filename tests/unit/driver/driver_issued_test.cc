// What nccl-roce-allreduce-driver issues, counted without a GPU: the arithmetic against the real H200 run (its
// 1,248 all-reduce TUNING lines and the statistics' 1,249 timed collectives), CUDA-graph mode (-G, nccl-tests'
// flag), and the "# nccl-roce-issued:" line each rank prints for the GPU proof's count check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/file.h"
#include "inspect/nccl_info_log.h"
#include "nccl-tests-integration/driver/issued_counts.h"
#include "nccl-tests-integration/driver/perf_table.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"
#include "tests/support/run_command.h"

namespace nccl_roce::driver {
namespace {

using ::testing::HasSubstr;

DriverOptions options(std::vector<std::string> args) {
  StatusOr<DriverOptions> o = parseDriverOptions(args);
  EXPECT_TRUE(o.isOk()) << o.status().toString();
  return o.isOk() ? *o : DriverOptions{};
}

TEST(DriverIssued, TheRealRunIssuedWhatTheArithmeticSays) {
  // The sweep of tests/data/gpu-runs/h200-nccl-2.28.9, as run-sweep.sh ran it.
  DriverIssued issued = expectedIssued(options({"-b", "8", "-e", "64M", "-f", "2", "-n", "20", "-w", "5", "-c", "1"}));
  // Per size: 5 + 20 out of place, 5 + 20 in place, the in-place check and the results' exchange; 24 sizes.
  EXPECT_EQ(issued.allReduce.eager, 24u * 52);
  EXPECT_EQ(issued.allReduce.captured, 0u);
  EXPECT_EQ(issued.allReduce.tunerCalls(), 1248u);
  EXPECT_EQ(issued.allReduce.timed(), 1248u);
  EXPECT_EQ(issued.allGather.timed(), 1u);

  StatusOr<std::string> text = readFileBounded(
      testing::sourcePath("tests/data/gpu-runs/h200-nccl-2.28.9/sweep/policy-inference/rep-1.log"), size_t{1} << 24);
  ASSERT_TRUE(text.isOk());
  inspect::NcclInfoLog log = inspect::parseNcclInfoLog(*text, "rep-1.log");
  ASSERT_EQ(log.processes.size(), 1u);
  uint64_t allReduces = 0, allGathers = 0;
  for (const inspect::NcclTuningLine& t : log.processes[0].tuning) (t.collective == 4 ? allReduces : allGathers)++;
  EXPECT_EQ(allReduces, issued.allReduce.tunerCalls()) << "NCCL printed one TUNING line per all-reduce it planned";
  EXPECT_EQ(allGathers, issued.allGather.tunerCalls());
}

TEST(DriverIssued, AGraphIsAskedOnceAtCaptureAndTimedAtEveryLaunch) {
  DriverOptions o = options({"-b", "4K", "-e", "8M", "-f", "16", "-n", "5", "-w", "1", "-G", "10"});
  ASSERT_EQ(sweepSizes(o).size(), 3u);  // 4K, 64K, 1M
  DriverIssued issued = expectedIssued(o);
  // Per size: 1 + 1 warm-ups, the check and the exchange eager; 5 + 5 captured, each graph launched 10 times.
  EXPECT_EQ(issued.allReduce.eager, 3u * 4);
  EXPECT_EQ(issued.allReduce.captured, 3u * 10);
  EXPECT_EQ(issued.allReduce.graphLaunches, 3u * 20);
  EXPECT_EQ(issued.allReduce.replayed, 3u * 100);
  EXPECT_EQ(issued.allReduce.tunerCalls(), 42u);
  EXPECT_EQ(issued.allReduce.timed(), 312u);
  DriverIssued unchecked =
      expectedIssued(options({"-b", "4K", "-e", "8M", "-f", "16", "-n", "5", "-w", "1", "-G", "10", "-c", "0"}));
  EXPECT_EQ(unchecked.allReduce.eager, 3u * 3);
}

TEST(DriverIssued, GraphModeIsNcclTestsFlagAndItsHeaderSaysSo) {
  EXPECT_EQ(options({"-G", "10"}).graphLaunches, 10);
  EXPECT_EQ(options({"--cudagraph", "3"}).graphLaunches, 3);
  EXPECT_EQ(options({}).graphLaunches, 0);
  StatusOr<DriverOptions> bad = parseDriverOptions({"-G", "-1"});
  ASSERT_FALSE(bad.isOk());
  EXPECT_THAT(bad.status().message(), HasSubstr("-G '-1': expected a whole number from 0 to 1048576"));
  EXPECT_THAT(driverUsage(), HasSubstr("-G, --cudagraph N"));
  DriverOptions o = options({"-b", "8", "-e", "8", "-G", "10"});
  std::string header = tableHeader(o, "NCCL version 2.28.9", {});
  sweep::PerfLog log = sweep::parsePerfLog(header, "header");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].parameters.graph, 10);
}

TEST(DriverIssued, EachRankSaysWhatItIssuedInOneLinePerCollective) {
  IssuedLine line{1, 4242, "gpu-node-7", "AllReduce", {12, 30, 60, 300}};
  std::string text = formatIssuedLine(line);
  EXPECT_EQ(text,
            "# nccl-roce-issued: rank=1 pid=4242 host=gpu-node-7 collective=AllReduce eager=12 captured=30 "
            "graph_launches=60 replayed=300\n");
  std::optional<IssuedLine> back = parseIssuedLine("[1,1]<stdout>:" + text.substr(0, text.size() - 1));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->rank, 1);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->host, "gpu-node-7");
  EXPECT_EQ(back->collective, "AllReduce");
  EXPECT_TRUE(back->counts == line.counts);
  EXPECT_FALSE(parseIssuedLine("# nccl-roce-issued: rank=1 pid=4242 collective=AllReduce eager=12").has_value());
  EXPECT_FALSE(parseIssuedLine("# nccl-roce-env: NCCL_DEBUG=INFO").has_value());
  std::vector<IssuedLine> all =
      issuedLinesOf("vm:1:1 [0] NCCL INFO x\n" + text + formatIssuedLine({1, 4242, "", "AllGather", {1, 0, 0, 0}}));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].host, "");
  EXPECT_EQ(all[1].counts.timed(), 1u);
}

}  // namespace
}  // namespace nccl_roce::driver

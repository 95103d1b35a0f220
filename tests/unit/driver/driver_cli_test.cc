// The built nccl-roce-allreduce-driver as operators and run-sweep.sh run it. Without a GPU (CI, this machine) it
// must say so and exit 77 having run nothing; with one, its table must read back through the sweep parser.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nccl-tests-integration/sweep/perf_log_parser.h"
#include "tests/support/run_command.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

const std::string kDriver = NCCL_ROCE_DRIVER_PATH;

TEST(DriverCli, TwoRanksAsTwoNodesOnOneHostMeasureOrSayWhyNot) {
  CommandResult r = runCommand(kDriver + " -b 8 -e 4K -f 4 -n 5 -w 1 --nranks 2 --distinct-hostid");
  if (r.exitCode == 77) {
    EXPECT_THAT(r.err, HasSubstr("nccl-roce-allreduce-driver: no usable CUDA device ("));
    EXPECT_THAT(r.err, HasSubstr("nothing was run"));
    EXPECT_EQ(r.err.find("rank 1"), std::string::npos) << "one message, not one per rank:\n" << r.err;
    EXPECT_EQ(r.out, "");
    return;
  }
  ASSERT_EQ(r.exitCode, 0) << r.err;
  sweep::PerfLog log = sweep::parsePerfLog(r.out, "driver");
  ASSERT_EQ(log.runs.size(), 1u) << r.out;
  const sweep::PerfRun& run = log.runs[0];
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.ranks(), std::optional<int>(2));
  EXPECT_EQ(run.nodes(), std::optional<int>(2));
  ASSERT_EQ(run.rows.size(), 5u);  // 8, 32, 128, 512, 2048
  for (const sweep::PerfRow& row : run.rows) {
    EXPECT_EQ(row.outOfPlace->wrong, std::optional<int64_t>(0)) << row.size;
    EXPECT_EQ(row.inPlace->wrong, std::optional<int64_t>(0)) << row.size;
  }
}

TEST(DriverCli, BadArgumentsExitTwoBeforeTouchingCuda) {
  CommandResult r = runCommand(kDriver + " -b 64M -e 8");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "nccl-roce-allreduce-driver: minimum size 64M is above the maximum 8\n");
}

TEST(DriverCli, HelpListsTheFlags) {
  CommandResult r = runCommand(kDriver + " --help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_THAT(r.out, HasSubstr("--rendezvous FILE"));
  EXPECT_THAT(r.out, HasSubstr("77 no usable CUDA device"));
}

}  // namespace
}  // namespace nccl_roce::testing

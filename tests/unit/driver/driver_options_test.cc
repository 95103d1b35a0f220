// nccl-roce-allreduce-driver's command line: nccl-tests' flags with nccl-tests' meaning, and the rank options
// run-sweep.sh passes. No GPU needed.
#include "nccl-tests-integration/driver/driver_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nccl_roce::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kK = 1024, kM = 1024 * 1024;

StatusOr<DriverOptions> parse(std::vector<std::string> args) {
  return parseDriverOptions(args);
}

std::string errorOf(std::vector<std::string> args) {
  StatusOr<DriverOptions> o = parseDriverOptions(args);
  EXPECT_FALSE(o.isOk());
  return o.isOk() ? "" : o.status().message();
}

TEST(DriverOptions, WithoutFlagsItMeasuresWhatAllReducePerfDoes) {
  StatusOr<DriverOptions> o = parse({});
  ASSERT_TRUE(o.isOk());
  EXPECT_THAT(sweepSizes(*o), ElementsAre(32 * kM));
  EXPECT_EQ(o->iters, 20);
  EXPECT_EQ(o->warmupIters, 1);
  EXPECT_TRUE(o->check);
  EXPECT_EQ(o->nranks, 1);
  EXPECT_FALSE(o->rank);
}

TEST(DriverOptions, ReadsTheArgumentsRunSweepPassesToOneRank) {
  StatusOr<DriverOptions> o = parse({"-b", "8", "-e", "64M", "-f", "2", "-n", "50", "-w", "5", "-c", "0", "--rank", "1",
                                     "--nranks", "2", "--rendezvous", "/tmp/sweep/ring-ll/rep-1.uid"});
  ASSERT_TRUE(o.isOk()) << o.status().toString();
  std::vector<uint64_t> sizes = sweepSizes(*o);
  ASSERT_EQ(sizes.size(), 24u);  // 8 B, 16 B, ... 64 MiB
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes[10], 8 * kK);
  EXPECT_EQ(sizes.back(), 64 * kM);
  EXPECT_EQ(o->iters, 50);
  EXPECT_EQ(o->warmupIters, 5);
  EXPECT_FALSE(o->check);
  EXPECT_EQ(o->rank, std::optional<int>(1));
  EXPECT_EQ(o->nranks, 2);
  EXPECT_EQ(o->rendezvous, "/tmp/sweep/ring-ll/rep-1.uid");
}

TEST(DriverOptions, LongFormsAndByteStepsLikeNcclTests) {
  StatusOr<DriverOptions> o =
      parse({"--minbytes", "1M", "--maxbytes", "4M", "--stepbytes", "1M", "--iters", "5", "--warmup_iters", "0"});
  ASSERT_TRUE(o.isOk()) << o.status().toString();
  EXPECT_THAT(sweepSizes(*o), ElementsAre(1 * kM, 2 * kM, 3 * kM, 4 * kM));
  EXPECT_EQ(o->warmupIters, 0);
  // -f 1 means "step by -i", as in nccl-tests.
  o = parse({"-b", "1M", "-e", "3M", "-f", "1", "-i", "1M"});
  ASSERT_TRUE(o.isOk());
  EXPECT_THAT(sweepSizes(*o), ElementsAre(1 * kM, 2 * kM, 3 * kM));
}

TEST(DriverOptions, SizesAreWholeElementsOfTheType) {
  // 6 B holds one float (4 B) and no double; 12 B three floats or one double; 24 B six floats or three doubles.
  StatusOr<DriverOptions> o = parse({"-b", "6", "-e", "30", "-f", "2"});
  ASSERT_TRUE(o.isOk());
  EXPECT_THAT(sweepSizes(*o), ElementsAre(4u, 12u, 24u));
  o = parse({"-b", "6", "-e", "30", "-f", "2", "-d", "double"});
  ASSERT_TRUE(o.isOk());
  EXPECT_THAT(sweepSizes(*o), ElementsAre(8u, 24u));
  EXPECT_THAT(errorOf({"-b", "2", "-e", "3", "-d", "float"}),
              HasSubstr("no size between -b and -e holds a whole float"));
}

TEST(DriverOptions, HugeRangesStopBeforeOverflowing) {
  StatusOr<DriverOptions> o = parse({"-b", "1", "-e", "18446744073709551615", "-f", "1000000"});
  ASSERT_TRUE(o.isOk()) << o.status().toString();
  // 1 B holds no float; the step after 1e18 would pass 2^64.
  EXPECT_THAT(sweepSizes(*o), ElementsAre(uint64_t{1000000}, uint64_t{1000000000000}, uint64_t{1000000000000000000}));
}

TEST(DriverOptions, MistakesAreNamed) {
  EXPECT_THAT(errorOf({"-b", "64M", "-e", "8"}), HasSubstr("minimum size 64M is above the maximum 8"));
  EXPECT_THAT(errorOf({"-b", "0", "-e", "8", "-f", "2"}), HasSubstr("-b 0 with -f never grows"));
  EXPECT_THAT(errorOf({"-b", "12Q"}), HasSubstr("-b '12Q'"));
  EXPECT_THAT(errorOf({"-n", "0"}), HasSubstr("-n '0': expected a whole number from 1"));
  EXPECT_THAT(errorOf({"-c", "yes"}), HasSubstr("-c 'yes'"));
  EXPECT_THAT(errorOf({"-d", "half"}), HasSubstr("float or double"));
  EXPECT_THAT(errorOf({"-o", "max"}), HasSubstr("the driver measures sum"));
  EXPECT_THAT(errorOf({"-g", "8"}), HasSubstr("one GPU per process"));
  EXPECT_THAT(errorOf({"--rank", "2", "--nranks", "2", "--rendezvous", "f"}),
              HasSubstr("--rank 2 is not below --nranks 2"));
  EXPECT_THAT(errorOf({"--rank", "1", "--nranks", "2"}), HasSubstr("--rank needs --rendezvous FILE"));
  EXPECT_THAT(errorOf({"--rank", "0", "--nranks", "2", "--rendezvous", "f", "--distinct-hostid"}),
              HasSubstr("a launcher sets NCCL_HOSTID per rank"));
  EXPECT_THAT(errorOf({"--blocking", "1"}), HasSubstr("unknown option '--blocking'"));
  EXPECT_THAT(errorOf({"-e"}), HasSubstr("-e needs a value"));
  EXPECT_THAT(errorOf({"all_reduce"}), HasSubstr("unexpected argument 'all_reduce'"));
}

TEST(DriverOptions, HelpNeedsNothingElse) {
  StatusOr<DriverOptions> o = parse({"--help", "-b", "64M", "-e", "8"});
  ASSERT_TRUE(o.isOk());
  EXPECT_TRUE(o->help);
  EXPECT_THAT(driverUsage(), HasSubstr("--distinct-hostid"));
}

}  // namespace
}  // namespace nccl_roce::driver

// The lines NCCL's logger writes, as every reader of NCCL's output takes them apart: the INFO-log reader behind
// `policy verify` and `sweep compare`, and the nccl-tests log parser behind `sweep`.
#include "inspect/nccl_log_line.h"

#include <gtest/gtest.h>

namespace nccl_roce::inspect {
namespace {

TEST(NcclLogLine, AnInfoLineGivesItsPrefixAndMessage) {
  std::optional<NcclLogLine> line =
      parseNcclLogLine("gpu-node-3:25114:25114 [0] NCCL INFO comm 0x55d1 rank 0 nRanks 2");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->level, NcclLogLevel::kInfo);
  EXPECT_EQ(line->prefix, "gpu-node-3:25114:25114 [0]");
  EXPECT_EQ(line->message, "comm 0x55d1 rank 0 nRanks 2");
}

TEST(NcclLogLine, AWarnLineKeepsItsSourceFileInThePrefixAndTheOriginStillReads) {
  std::optional<NcclLogLine> line =
      parseNcclLogLine("h1:77:80 [3] plugin/tuner_setup.cc:63 NCCL WARN nccl-roce: tuner: policy 'x' unusable");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->level, NcclLogLevel::kWarn);
  EXPECT_EQ(line->message, "nccl-roce: tuner: policy 'x' unusable");
  std::string host;
  int64_t pid = 0;
  ASSERT_TRUE(parseNcclLogOrigin(line->prefix, &host, &pid));
  EXPECT_EQ(host, "h1");
  EXPECT_EQ(pid, 77);
}

TEST(NcclLogLine, ALaunchersTagsBeforeTheOriginAreSkipped) {
  std::optional<NcclLogLine> line =
      parseNcclLogLine("[1,0]<stdout>:node-b:4242:4300 [1] NCCL INFO NCCL version 2.28.9+cuda13.0");
  ASSERT_TRUE(line);
  std::string host;
  int64_t pid = 0;
  ASSERT_TRUE(parseNcclLogOrigin(line->prefix, &host, &pid));
  EXPECT_EQ(host, "node-b");
  EXPECT_EQ(pid, 4242);
}

TEST(NcclLogLine, TraceAndAbortLinesAreNcclsTooAndALineMayBeginWithItsLevel) {
  ASSERT_TRUE(parseNcclLogLine("h:1:2 [0] 1234.567 enqueue.cc:9 NCCL TRACE Input: { }"));
  EXPECT_EQ(parseNcclLogLine("h:1:2 [0] 1234.567 enqueue.cc:9 NCCL TRACE Input: { }")->level, NcclLogLevel::kTrace);
  EXPECT_EQ(parseNcclLogLine("h:1:2 [0] init.cc:1 NCCL ABORT gone")->level, NcclLogLevel::kAbort);
  std::optional<NcclLogLine> bare = parseNcclLogLine("NCCL INFO Bootstrap : Using eth0");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->prefix, "");
  EXPECT_EQ(bare->message, "Bootstrap : Using eth0");
}

TEST(NcclLogLine, TheEarliestLevelWinsWhereAMessageQuotesAnother) {
  std::optional<NcclLogLine> line = parseNcclLogLine("h:1:2 [0] NCCL INFO saw 'x NCCL WARN y' earlier");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->level, NcclLogLevel::kInfo);
  EXPECT_EQ(line->message, "saw 'x NCCL WARN y' earlier");
}

TEST(NcclLogLine, OtherTextIsNotNcclsAndAPrefixWithoutOriginHasNone) {
  EXPECT_FALSE(parseNcclLogLine("#  out-of-place                       in-place"));
  EXPECT_FALSE(parseNcclLogLine("NCCL INFOx"));
  std::string host;
  int64_t pid = 0;
  EXPECT_FALSE(parseNcclLogOrigin("", &host, &pid));
  EXPECT_FALSE(parseNcclLogOrigin("[0]", &host, &pid));
  EXPECT_FALSE(parseNcclLogOrigin("host:pid:tid [0]", &host, &pid));
}

TEST(NcclVersion, TheVersionIsFoundBareOrInsideALogLineAndItsReleaseDropsTheBuildTag) {
  EXPECT_EQ(findNcclVersion("# NCCL version 2.22.3+cuda12.2"), "2.22.3+cuda12.2");
  EXPECT_EQ(findNcclVersion("h:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda13.0"), "2.28.9+cuda13.0");
  EXPECT_EQ(findNcclVersion("RCCL version 2.18.3+hip6.0 HEAD:abc"), "2.18.3+hip6.0");
  EXPECT_EQ(ncclRelease("2.28.9+cuda13.0"), "2.28.9");
  EXPECT_EQ(ncclRelease("2.28.9"), "2.28.9");
}

TEST(NcclVersion, APhraseWithoutAVersionIsNone) {
  EXPECT_FALSE(findNcclVersion("the NCCL version is unknown"));
  EXPECT_FALSE(findNcclVersion("NCCL version "));
  EXPECT_FALSE(findNcclVersion("no version here"));
}

}  // namespace
}  // namespace nccl_roce::inspect

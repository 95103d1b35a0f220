// The lines NCCL's logger writes, as every reader of NCCL's output takes them apart: the INFO-log reader behind
// `policy verify` and `sweep compare`, and the nccl-tests log parser behind `sweep`.
#include "inspect/nccl_log_line.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace nccl_roce::inspect {
namespace {

// The host and pid a line's prefix names; nullopt where it names none.
std::optional<std::pair<std::string, int64_t>> originOf(std::string_view prefix) {
  std::string host;
  int64_t pid = 0;
  if (!parseNcclLogOrigin(prefix, &host, &pid)) return std::nullopt;
  return std::make_pair(host, pid);
}

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
  EXPECT_EQ(originOf(line->prefix), std::make_pair(std::string("h1"), int64_t{77}));
}

TEST(NcclLogLine, ALaunchersTagsBeforeTheOriginAreSkipped) {
  std::optional<NcclLogLine> line =
      parseNcclLogLine("[1,0]<stdout>:node-b:4242:4300 [1] NCCL INFO NCCL version 2.28.9+cuda13.0");
  ASSERT_TRUE(line);
  EXPECT_EQ(originOf(line->prefix), std::make_pair(std::string("node-b"), int64_t{4242}));
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
  EXPECT_FALSE(originOf(""));
  EXPECT_FALSE(originOf("[0]"));
  EXPECT_FALSE(originOf("host:pid:tid [0]"));
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

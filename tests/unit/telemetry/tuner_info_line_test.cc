// The tuner's INFO line at a communicator's init, written and read by one definition: every form reads back as
// it was written, and text that is not the whole line reads as nothing (policy verify then says no line named
// the policy, rather than trusting half of one).
#include "telemetry/tuner_info_line.h"

#include <gtest/gtest.h>

namespace nccl_roce::telemetry {
namespace {

TunerInfoLine builtinPolicy() {
  TunerInfoLine t;
  t.commId = 0x5f3c9a0e7d21b4c8;
  t.nRanks = 16;
  t.nNodes = 2;
  t.policy = "inference";
  t.source = "builtin:inference";
  t.digest = "sha256:cf91bc94eb3688f88191fb9dda3d629d83738a26f2e094e4eb073f500fd9e6f4";
  t.rulesApplying = 1;
  t.rules = 1;
  return t;
}

void expectSame(const TunerInfoLine& a, const TunerInfoLine& b) {
  EXPECT_EQ(a.commId, b.commId);
  EXPECT_EQ(a.nRanks, b.nRanks);
  EXPECT_EQ(a.nNodes, b.nNodes);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.experiment, b.experiment);
  EXPECT_EQ(a.experimentDigest, b.experimentDigest);
  EXPECT_EQ(a.arm, b.arm);
  EXPECT_EQ(a.rulesApplying, b.rulesApplying);
  EXPECT_EQ(a.rules, b.rules);
  EXPECT_EQ(a.switchback, b.switchback);
  EXPECT_EQ(a.arms, b.arms);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.turnsPerRound, b.turnsPerRound);
}

TEST(TunerInfoLine, APolicyReadsBackAsWritten) {
  TunerInfoLine t = builtinPolicy();
  std::string text = renderTunerInfoLine(t);
  EXPECT_EQ(text,
            "tuner: comm 0x5f3c9a0e7d21b4c8 (16 ranks, 2 nodes) uses policy 'inference' (builtin:inference, "
            "sha256:cf91bc94eb3688f88191fb9dda3d629d83738a26f2e094e4eb073f500fd9e6f4): 1 of 1 rules apply");
  std::optional<TunerInfoLine> read = parseTunerInfoLine(text);
  ASSERT_TRUE(read.has_value());
  expectSame(*read, t);
}

TEST(TunerInfoLine, AnExperimentsArmReadsBackWithTheExperimentsIdentity) {
  TunerInfoLine t = builtinPolicy();
  t.experiment = "explore-decode";
  t.experimentDigest = "sha256:a21f5a960692cc61ec96a4ebd09672547eb63966c9150dabff05f45ab354a2bf";
  t.arm = "explore-ring-ll";
  t.rulesApplying = 2;
  t.rules = 3;
  std::optional<TunerInfoLine> read = parseTunerInfoLine(renderTunerInfoLine(t));
  ASSERT_TRUE(read.has_value());
  expectSame(*read, t);
}

TEST(TunerInfoLine, ASwitchbackReadsBackWithItsArmsAndTurns) {
  TunerInfoLine t;
  t.commId = 0xaa;
  t.nRanks = 16;
  t.nNodes = 2;
  t.experiment = "decode-ll";
  t.experimentDigest = "sha256:ab";
  t.switchback = true;
  t.arms = {"control", "candidate", "explore-tree-ll"};
  t.block = 16;
  t.turnsPerRound = 20;
  std::string text = renderTunerInfoLine(t);
  EXPECT_EQ(text,
            "tuner: comm 0x00000000000000aa (16 ranks, 2 nodes) runs experiment 'decode-ll' (sha256:ab) as a "
            "switchback: arms control, candidate, explore-tree-ll in turns of 16 tuner calls, 20 turns a round");
  std::optional<TunerInfoLine> read = parseTunerInfoLine(text);
  ASSERT_TRUE(read.has_value());
  expectSame(*read, t);
}

TEST(TunerInfoLine, NoPolicyReadsBackAsNcclsOwn) {
  TunerInfoLine t;
  t.commId = 1;
  t.nRanks = 2;
  t.nNodes = 1;
  t.policy = "nccl";
  t.source = "-";
  t.digest = "-";
  std::optional<TunerInfoLine> read = parseTunerInfoLine(renderTunerInfoLine(t));
  ASSERT_TRUE(read.has_value());
  expectSame(*read, t);
}

TEST(TunerInfoLine, AnythingButTheWholeLineReadsAsNothing) {
  std::string text = renderTunerInfoLine(builtinPolicy());
  for (size_t cut : {size_t{0}, size_t{12}, size_t{40}, text.size() - 20, text.size() - 1}) {
    EXPECT_FALSE(parseTunerInfoLine(text.substr(0, cut)).has_value()) << text.substr(0, cut);
  }
  EXPECT_FALSE(parseTunerInfoLine(text + " and more").has_value());
  EXPECT_FALSE(parseTunerInfoLine("NCCL-RoCE: " + text).has_value()) << "the logger's prefix is not the line's";
  EXPECT_FALSE(parseTunerInfoLine("tuner: comm 0x5f3c9a0e7d21b4c8 made 1249 decisions, 636 by policy rules, 0 with "
                                  "no available preference; reported to /tmp/stats.620.json")
                   .has_value());
  EXPECT_FALSE(parseTunerInfoLine("tuner: comm 0xzz (16 ranks, 2 nodes) uses policy 'a' (b, c): 1 of 1 rules apply")
                   .has_value());
  EXPECT_FALSE(parseTunerInfoLine("tuner: comm 0x1 (99999999999 ranks, 2 nodes) uses policy 'a' (b, c): 1 of 1 "
                                  "rules apply")
                   .has_value());
}

}  // namespace
}  // namespace nccl_roce::telemetry

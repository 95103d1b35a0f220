// Policy files as operators write them, and the precise errors they get when something is off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tuner/nccl_csv.h"
#include "tuner/policy_toml.h"

namespace nccl_roce::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> errorsOf(const PolicyDocument& doc) {
  std::vector<std::string> out;
  for (const auto& e : doc.errors) out.push_back(e.toString());
  return out;
}

TEST(PolicyToml, ReadsRulesWithUnitsRangesAndPreferences) {
  auto doc = parsePolicyToml(R"(
[policy]
name = "decode"
description = "tuned on cluster A"

[env]
NCCL_IB_QPS_PER_CONNECTION = "2"

[[rule]]
name = "small"
collective = ["allreduce", "reduce_scatter"]
size = "16K..256K"
nodes = "2.."
ranks = 16
pipe_ops = 1
reg_buff = false
algorithm = ["tree", "ring"]
protocol = ["ll", "simple"]
channels = 8

[[rule]]
size = "1M.."
protocol = "simple"
)", "p.toml");
  ASSERT_TRUE(doc.ok()) << joinErrors(doc.errors);
  const Policy& p = *doc.policy;
  EXPECT_EQ(p.name, "decode");
  EXPECT_EQ(p.env, (std::vector<std::pair<std::string, std::string>>{{"NCCL_IB_QPS_PER_CONNECTION", "2"}}));
  ASSERT_EQ(p.rules.size(), 2u);
  const Rule& r = p.rules[0];
  EXPECT_EQ(r.name, "small");
  EXPECT_EQ(r.position.line, 9);
  EXPECT_EQ(r.collectives, (1u << 4) | (1u << 3));
  EXPECT_EQ(r.bytes.lo, 16u * 1024);
  EXPECT_EQ(r.bytes.hi, 256u * 1024 - 1) << "half-open: up to but not including 256K";
  EXPECT_EQ(r.nodes.lo, 2u);
  EXPECT_EQ(r.nodes.hi, UINT64_MAX);
  EXPECT_EQ(r.ranks.lo, 16u);
  EXPECT_EQ(r.ranks.hi, 16u);
  EXPECT_EQ(r.regBuff, false);
  EXPECT_EQ(r.channels, 8);
  ASSERT_EQ(r.choices.size(), 4u) << "algorithms x protocols, algorithm-major";
  EXPECT_EQ(r.choices[0].algorithm, 0);
  EXPECT_EQ(r.choices[0].protocol, 0);
  EXPECT_EQ(r.choices[1].protocol, 2);
  EXPECT_EQ(r.choices[2].algorithm, 1);
  const Rule& open = p.rules[1];
  EXPECT_EQ(open.collectives, kAllCollectives);
  ASSERT_EQ(open.choices.size(), 1u);
  EXPECT_EQ(open.choices[0].algorithm, -1) << "no algorithm: the cheapest NCCL offers with that protocol";
  EXPECT_EQ(open.choices[0].protocol, 2);
  EXPECT_NE(p.contentHash, 0u);
}

TEST(PolicyToml, UnknownNamesAreErrorsWithTheirPosition) {
  auto doc = parsePolicyToml(
      "[policy]\nname = \"x\"\n[[rule]]\ncollective = \"allreduse\"\nalgorithm = \"ringg\"\nprotocol = [\"ll\", \"ll65\"]\n",
      "bad.toml");
  EXPECT_THAT(errorsOf(doc),
              ElementsAre("bad.toml:4:14: unknown collective 'allreduse' (expected one of: broadcast, reduce, "
                          "allgather, reducescatter, allreduce)",
                          "bad.toml:5:13: unknown algorithm 'ringg' (expected one of: tree, ring, collnetdirect, "
                          "collnetchain, nvls, nvlstree, pat)",
                          "bad.toml:6:19: unknown protocol 'll65' (expected one of: ll, ll128, simple)"));
}

TEST(PolicyToml, RangesMustBeUpright) {
  auto doc = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nsize = \"256K..16K\"\n", "p.toml");
  EXPECT_THAT(errorsOf(doc), ElementsAre("p.toml:4:8: size: inverted range '256K..16K': 256K..16K holds no value"));
  auto empty = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nnodes = \"2..2\"\n", "p.toml");
  EXPECT_THAT(errorsOf(empty), ElementsAre("p.toml:4:9: nodes: empty range '2..2': 2..2 holds no value"));
  auto inverted = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nsize = \"8K..=4K\"\n", "p.toml");
  EXPECT_THAT(errorsOf(inverted), ElementsAre("p.toml:4:8: size: inverted range '8K..=4K': 8K is above 4K"));
}

TEST(PolicyToml, SizesPastTwoToTheSixtyFourAreRejected) {
  auto doc = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nsize = \"..18446744073709551616\"\n", "p.toml");
  ASSERT_EQ(doc.errors.size(), 1u);
  EXPECT_THAT(doc.errors[0].toString(), HasSubstr("p.toml:4:8: size: size '18446744073709551616' exceeds 2^64-1"));
  auto big = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nsize = \"16E\"\n", "p.toml");
  EXPECT_FALSE(big.ok());
}

TEST(PolicyToml, OverlappingSizeRangesWithTheSameSelectorsAreErrors) {
  auto doc = parsePolicyToml(R"([policy]
name = "x"
[[rule]]
collective = "allreduce"
size = "..64K"
protocol = "ll"
[[rule]]
collective = "allreduce"
size = "32K..1M"
protocol = "simple"
[[rule]]
collective = "allreduce"
size = "1M..4M"
protocol = "simple"
[[rule]]
collective = "allgather"
size = "32K..1M"
protocol = "ll128"
)", "o.toml");
  EXPECT_THAT(errorsOf(doc), ElementsAre("o.toml:7:1: size range 32K..1M overlaps ..64K of the rule at line 3 with "
                                         "the same selectors"));
}

TEST(PolicyToml, RulesThatCanNeverFireAreErrors) {
  auto doc = parsePolicyToml(R"([policy]
name = "x"
[[rule]]
name = "everything-small"
size = "..1M"
[[rule]]
collective = "allreduce"
size = "4K..=8K"
nodes = 2
protocol = "ll"
)", "s.toml");
  EXPECT_THAT(errorsOf(doc), ElementsAre("s.toml:6:1: never fires: the rule at line 3 ('everything-small') matches "
                                         "everything it matches"));
}

TEST(PolicyToml, TyposInKeysAreNotSilentlyIgnored) {
  auto doc = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nprotocl = \"ll\"\n", "t.toml");
  ASSERT_EQ(doc.errors.size(), 1u);
  EXPECT_THAT(doc.errors[0].toString(), HasSubstr("t.toml:4:1: unknown key 'protocl' in a [[rule]]"));
}

TEST(PolicyToml, ChannelsAreBoundedToNcclsMaximum) {
  auto doc = parsePolicyToml("[policy]\nname = \"x\"\n[[rule]]\nchannels = 65\n", "c.toml");
  EXPECT_THAT(errorsOf(doc), ElementsAre("c.toml:4:12: channels must be a whole number from 0 (NCCL decides) to 64"));
}

TEST(PolicyToml, SyntaxErrorsCarryTomlsPosition) {
  auto doc = parsePolicyToml("[policy]\nname = \"x\n", "syn.toml");
  ASSERT_EQ(doc.errors.size(), 1u);
  EXPECT_EQ(doc.errors[0].line, 2);
  EXPECT_GT(doc.errors[0].column, 0);
  EXPECT_FALSE(doc.ok());
}

TEST(PolicyToml, AFileMustBeAPolicyOrAnExperiment) {
  EXPECT_THAT(errorsOf(parsePolicyToml("title = \"x\"\n", "e.toml")),
              ElementsAre("e.toml:1:1: expected a [policy] or an [experiment] table"));
  EXPECT_THAT(errorsOf(parsePolicyToml("[policy]\n", "n.toml")), ElementsAre("n.toml:1:1: [policy] needs a non-empty name"));
}

TEST(ExperimentToml, ArmsWithWeightsThatAddUpToAHundred) {
  auto doc = parsePolicyToml(R"([experiment]
name = "decode-ll"
[[experiment.arm]]
name = "control"
policy = "nccl"
weight = 50
[[experiment.arm]]
name = "candidate"
policy = "candidate.toml"
weight = 50
)", "ab.toml");
  ASSERT_TRUE(doc.ok()) << joinErrors(doc.errors);
  ASSERT_EQ(doc.experiment->arms.size(), 2u);
  EXPECT_EQ(doc.experiment->arms[1].policyRef, "candidate.toml");
  EXPECT_EQ(doc.experiment->arms[1].weight, 50u);
}

TEST(ExperimentToml, DuplicateArmsAndWrongWeightsAreErrors) {
  auto doc = parsePolicyToml(R"([experiment]
name = "bad"
[[experiment.arm]]
name = "a"
policy = "nccl"
weight = 60
[[experiment.arm]]
name = "a"
policy = "inference"
weight = 30
)", "ab.toml");
  EXPECT_THAT(errorsOf(doc), ElementsAre("ab.toml:8:8: duplicate arm 'a'", "ab.toml:1:1: arm weights add up to 90, not 100"));
}

TEST(NcclCsv, ImportsTheExampleTunerFormatWithItsMeaning) {
  auto doc = parseNcclCsv(
      "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n"
      "allreduce,0,65536,tree,simple,2,1,-1\n"
      "allreduce,65537,1048576,ring,ll128,-1,-1,-1,1\n"
      "allgather, 0, 4096, ring, ll, -1, 2, 16, -1, 1\n",
      "nccl_tuner.conf");
  ASSERT_TRUE(doc.ok()) << joinErrors(doc.errors);
  const Policy& p = *doc.policy;
  EXPECT_TRUE(p.unavailableFallsThrough);
  ASSERT_EQ(p.rules.size(), 3u);
  EXPECT_EQ(p.rules[0].collectives, 1u << 4);
  EXPECT_EQ(p.rules[0].bytes.hi, 65536u) << "bounds are inclusive";
  EXPECT_EQ(p.rules[0].channels, 2);
  EXPECT_EQ(p.rules[0].nodes.lo, 1u);
  EXPECT_TRUE(p.rules[0].ranks.isAll());
  EXPECT_EQ(p.rules[1].channels, 0) << "-1 keeps NCCL's channel count (0), not the example's 1";
  EXPECT_EQ(p.rules[1].pipeOps.lo, 1u);
  EXPECT_EQ(p.rules[2].regBuff, true);
  EXPECT_EQ(p.rules[2].ranks.lo, 16u);
  EXPECT_EQ(p.rules[2].position.line, 4);
}

TEST(NcclCsv, UnknownNamesAreErrorsNotSilentMappings) {
  // NCCL's example maps an unknown collective to allreduce, algorithm to ring, protocol to simple.
  auto doc = parseNcclCsv("invalid_collective,0,100,ringg,LL,-1,-1,-1\nallreduce,abc,100,ring,simple,-1,-1,-1\n"
                          "allreduce,100,0,ring,simple,-1,-1,-1\nallreduce,0,1\n",
                          "r.csv");
  EXPECT_THAT(errorsOf(doc),
              ElementsAre(HasSubstr("r.csv:1:1: unknown collective 'invalid_collective'"),
                          HasSubstr("r.csv:1:26: unknown algorithm 'ringg'"),
                          "r.csv:2:11: min_bytes 'abc' is not a byte count below 2^64",
                          "r.csv:3:11: inverted range: min_bytes 100 is above max_bytes 0",
                          HasSubstr("r.csv:4:1: expected 8 to 10 fields")));
}

TEST(NcclCsv, IsRecognisedByName) {
  EXPECT_TRUE(looksLikeNcclCsv("/etc/nccl_tuner.conf"));
  EXPECT_TRUE(looksLikeNcclCsv("rules.csv"));
  EXPECT_FALSE(looksLikeNcclCsv("policy.toml"));
}

}  // namespace
}  // namespace nccl_roce::tuner

// Exploration experiments ([experiment.explore]): arms generated from the combinations NCCL can run, how
// communicators are assigned to them, what they decide, and the precise errors for what NCCL never runs.
#include "policy/exploration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "inspect/explain.h"
#include "policy/nccl_availability.h"
#include "policy/policy_loader.h"
#include "policy/policy_toml.h"
#include "tests/support/temp_dir.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/experiment.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr int kTree = 0, kRing = 1, kCollNetDirect = 2, kCollNetChain = 3, kNvls = 4, kNvlsTree = 5, kPat = 6;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr uint32_t kBroadcast = 1u << 0, kReduce = 1u << 1, kAllGather = 1u << 2, kReduceScatter = 1u << 3,
                   kAllReduce = 1u << 4;

std::vector<std::string> errorsOf(const policy::PolicyDocument& doc) {
  std::vector<std::string> out;
  for (const auto& e : doc.errors) out.push_back(e.toString());
  return out;
}

// An experiment: the control arm (the built-in inference policy) and an [experiment.explore] table.
std::string withExplore(const std::string& explore, int controlWeight = 95) {
  return "[experiment]\nname = \"explore-decode\"\n[[experiment.arm]]\nname = \"control\"\npolicy = \"inference\"\n"
         "weight = " +
         std::to_string(controlWeight) + "\n[experiment.explore]\n" + explore;
}

std::vector<std::string> armNames(const policy::Exploration& explore) {
  std::vector<std::string> names;
  for (const auto& arm : explore.arms) names.push_back(arm.name);
  return names;
}

TEST(ExploreToml, GeneratesOneArmPerCombinationAlgorithmMajorInTheOrderWritten) {
  auto doc = policy::parsePolicyToml(
      withExplore("weight = 5\ncollective = \"allreduce\"\nsize = \"16K..64M\"\nnodes = \"2..\"\n"
                  "algorithm = [\"tree\", \"ring\"]\nprotocol = [\"simple\", \"ll\"]\n"
                  "channels = [0, 16]\n"),
      "e.toml");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors);
  const policy::Exploration& explore = *doc.experiment->explore;
  EXPECT_EQ(explore.weight, 5u);
  EXPECT_EQ(explore.base, "control") << "default: the first written arm";
  EXPECT_EQ(explore.position.line, 7);
  EXPECT_THAT(armNames(explore), ElementsAre("explore-tree-simple", "explore-tree-simple-ch16", "explore-tree-ll",
                                             "explore-tree-ll-ch16", "explore-ring-simple", "explore-ring-simple-ch16",
                                             "explore-ring-ll", "explore-ring-ll-ch16"));
  const policy::ExploredChoice& last = explore.choices.back();
  EXPECT_EQ(last.algorithm, kRing);
  EXPECT_EQ(last.protocol, kLL);
  EXPECT_EQ(last.channels, 16);
  EXPECT_EQ(last.collectives, kAllReduce);
  EXPECT_EQ(last.nodes.lo, 2u);
  EXPECT_EQ(explore.bytes.lo, 16u << 10);
  EXPECT_EQ(explore.bytes.hi, (64u << 20) - 1);
  EXPECT_EQ(doc.experiment->arms.size(), 1u) << "generated arms are kept apart from the written ones";
}

TEST(ExploreToml, ACombinationIsExploredOnlyWhereNcclCanRunIt) {
  auto doc =
      policy::parsePolicyToml(withExplore("weight = 5\nbase = \"control\"\ncollective = \"*\"\n"
                                          "algorithm = [\"ring\", \"nvlstree\", \"pat\"]\nprotocol = \"simple\"\n"),
                              "e.toml");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors);
  const policy::Exploration& explore = *doc.experiment->explore;
  ASSERT_THAT(armNames(explore), ElementsAre("explore-ring-simple", "explore-nvlstree-simple", "explore-pat-simple"));
  EXPECT_EQ(explore.choices[0].collectives, kAllReduce | kAllGather | kReduceScatter | kBroadcast | kReduce);
  EXPECT_TRUE(explore.choices[0].nodes.isAll());
  EXPECT_EQ(explore.choices[1].collectives, kAllReduce);
  EXPECT_EQ(explore.choices[1].nodes.lo, 2u) << "NVLSTree never runs on one node: its arm behaves as the base there";
  EXPECT_EQ(explore.choices[2].collectives, kAllGather | kReduceScatter);
  policy::Rule rule = policy::exploredRule(explore, explore.choices[1]);
  EXPECT_EQ(rule.name, "explore nvlstree/simple");
  EXPECT_EQ(rule.collectives, kAllReduce);
  EXPECT_EQ(rule.nodes.lo, 2u);
  ASSERT_EQ(rule.choices.size(), 1u);
  EXPECT_EQ(rule.choices[0].algorithm, kNvlsTree);
  EXPECT_EQ(rule.choices[0].protocol, kSimple);
  EXPECT_EQ(rule.channels, 0);
}

TEST(ExploreToml, ChunkSizesAreOneMoreDimensionInnermostAndNamedAfterTheChunk) {
  auto doc = policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nsize = \"1M..32M\"\n"
                                                 "algorithm = \"ring\"\nprotocol = [\"simple\", \"ll128\"]\n"
                                                 "chunk_size = [\"nccl\", \"x0.5\", \"x2\", \"480K\"]\n"),
                                     "e.toml");
  ASSERT_TRUE(doc.ok()) << policy::joinErrors(doc.errors);
  const policy::Exploration& explore = *doc.experiment->explore;
  EXPECT_THAT(armNames(explore),
              ElementsAre("explore-ring-simple", "explore-ring-simple-chunkx0.5", "explore-ring-simple-chunkx2",
                          "explore-ring-simple-chunk480k", "explore-ring-ll128", "explore-ring-ll128-chunkx0.5",
                          "explore-ring-ll128-chunkx2", "explore-ring-ll128-chunk480k"));
  const policy::ExploredChoice& last = explore.choices.back();
  EXPECT_EQ(last.chunk, telemetry::ChunkSize::ofBytes(480 << 10));
  policy::Rule rule = policy::exploredRule(explore, explore.choices[2]);
  EXPECT_EQ(rule.name, "explore ring/simple chunk x2");
  EXPECT_EQ(rule.chunkSizes.forProtocol(kSimple), telemetry::ChunkSize::scaled(1));
  EXPECT_TRUE(rule.chunkSizes.forProtocol(kLL128).isNccl()) << "only for the protocol the arm forces";
  EXPECT_EQ(policy::exploredRule(explore, explore.choices[0]).chunkSizes, policy::ChunkSizes{})
      << "NCCL's own: as before";
}

TEST(ExploreToml, AnExploredChunkSizeNcclCannotUseIsAnErrorAtTheValue) {
  auto doc =
      policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nalgorithm = [\"ring\", \"nvls\"]\n"
                                          "protocol = \"simple\"\nchunk_size = [\"256K\", \"256K\", \"1000\"]\n"),
                              "e.toml");
  EXPECT_THAT(
      errorsOf(doc),
      ElementsAre("e.toml:12:23: chunk_size 256K is listed twice",
                  "e.toml:12:31: chunk_size 1000 for Ring/Simple: not a multiple of Simple's grain of 512 bytes "
                  "(NCCL would round it down to 512)",
                  HasSubstr("e.toml:12:15: chunk_size 256K for NVLS/Simple: above 128K"),
                  "e.toml:12:31: chunk_size 1000 for NVLS/Simple: not a multiple of Simple's grain of 512 "
                  "bytes (NCCL would round it down to 512)"));
}

// A chunk size NCCL cannot use is one mistake per algorithm and protocol: the channel counts explored beside it do
// not change what NCCL can use, so they do not repeat it.
TEST(ExploreToml, AnUnusableChunkSizeIsReportedOnceWhateverTheChannelCounts) {
  auto doc = policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
                                                 "protocol = \"simple\"\nchannels = [0, 8, 16]\n"
                                                 "chunk_size = [\"nccl\", \"1000\"]\n"),
                                     "e.toml");
  EXPECT_THAT(errorsOf(doc),
              ElementsAre("e.toml:13:23: chunk_size 1000 for Ring/Simple: not a multiple of Simple's grain of 512 "
                          "bytes (NCCL would round it down to 512)"));
}

// What NCCL's tuning model (ncclTopoTuneModel) can give a cost at all, read from its source at every tag from
// v2.21.5-1 to v2.30.7-1 (policy/nccl_availability.cc cites the lines).
TEST(NcclAvailability, WhichCollectivesProtocolsAndNodeCountsEachAlgorithmCanEverRun) {
  EXPECT_EQ(policy::collectivesOffered(kTree), kAllReduce);
  EXPECT_EQ(policy::collectivesOffered(kRing), kAllReduce | kAllGather | kReduceScatter | kBroadcast | kReduce);
  EXPECT_EQ(policy::collectivesOffered(kCollNetDirect), kAllReduce | kAllGather | kReduceScatter);
  EXPECT_EQ(policy::collectivesOffered(kCollNetChain), kAllReduce);
  EXPECT_EQ(policy::collectivesOffered(kNvls), kAllReduce | kAllGather | kReduceScatter);
  EXPECT_EQ(policy::collectivesOffered(kNvlsTree), kAllReduce);
  EXPECT_EQ(policy::collectivesOffered(kPat), kAllGather | kReduceScatter);
  EXPECT_EQ(policy::collectivesOffered(7), 0u);
  EXPECT_EQ(policy::collectivesOffered(-1), 0u);
  for (int a : {kTree, kRing}) {
    for (int p : {kLL, kLL128, kSimple}) EXPECT_TRUE(policy::protocolOffered(a, p)) << a << "/" << p;
  }
  for (int a : {kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat}) {
    EXPECT_FALSE(policy::protocolOffered(a, kLL)) << a;
    EXPECT_FALSE(policy::protocolOffered(a, kLL128)) << a;
    EXPECT_TRUE(policy::protocolOffered(a, kSimple)) << a;
  }
  EXPECT_FALSE(policy::protocolOffered(kRing, 3));
  EXPECT_EQ(policy::nodesOffered(kNvlsTree).lo, 2u);
  for (int a : {kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kPat})
    EXPECT_TRUE(policy::nodesOffered(a).isAll()) << a;
  EXPECT_EQ(policy::collectiveList(kBroadcast | kAllReduce | kReduceScatter), "AllReduce, ReduceScatter, Broadcast");
}

TEST(ExploreToml, WhatNcclNeverRunsIsAnErrorAtTheNameThatRulesItOut) {
  auto doc = policy::parsePolicyToml(
      withExplore("weight = 5\ncollective = [\"allgather\", \"broadcast\"]\n"
                  "algorithm = [\"tree\", \"ring\", \"nvls\"]\nprotocol = [\"ll\", \"simple\"]\n"),
      "bad.toml");
  EXPECT_THAT(
      errorsOf(doc),
      ElementsAre("bad.toml:10:14: NCCL never runs Tree for AllGather, Broadcast (it runs Tree for AllReduce only)",
                  "bad.toml:11:13: NCCL never runs NVLS with LL (it runs NVLS with Simple only)"));
  auto oneNode = policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nnodes = 1\n"
                                                     "algorithm = [\"ring\", \"nvls_tree\"]\nprotocol = \"simple\"\n"),
                                         "one.toml");
  EXPECT_THAT(errorsOf(oneNode),
              ElementsAre("one.toml:11:22: NCCL never runs NVLSTree on nodes 1 (only on nodes 2..)"));
  auto pat =
      policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nalgorithm = \"pat\"\nprotocol = "
                                          "\"simple\"\n"),
                              "pat.toml");
  EXPECT_THAT(errorsOf(pat),
              ElementsAre("pat.toml:10:13: NCCL never runs PAT for AllReduce (it runs PAT for AllGather, "
                          "ReduceScatter only)"));
}

TEST(ExploreToml, MoreThanSixtyFourArmsAreTooThinToMeasure) {
  std::string channels;
  for (int c = 0; c <= 32; ++c) channels += (c ? ", " : "") + std::to_string(c);
  auto doc =
      policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = "
                                          "[\"ll\", \"simple\"]\nchannels = [" +
                                          channels + "]\n"),
                              "many.toml");
  EXPECT_THAT(errorsOf(doc),
              ElementsAre(HasSubstr("many.toml:7:1: 66 generated arms (algorithms x protocols x channels "
                                    "x chunk sizes), more than 64: each would get too thin a share")));
  channels.resize(channels.rfind(','));  // 0..31: 64 arms, the most allowed
  EXPECT_TRUE(
      policy::parsePolicyToml(withExplore("weight = 5\ncollective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = "
                                          "[\"ll\", \"simple\"]\nchannels = [" +
                                          channels + "]\n"),
                              "64.toml")
          .ok());
}

TEST(ExploreToml, MalformedTablesGetPreciseErrors) {
  EXPECT_THAT(errorsOf(policy::parsePolicyToml(withExplore("weight = 5\n"), "e.toml")),
              ElementsAre(HasSubstr("e.toml:7:1: [experiment.explore] needs collective"),
                          HasSubstr("e.toml:7:1: [experiment.explore] needs algorithm"),
                          HasSubstr("e.toml:7:1: [experiment.explore] needs protocol")));
  EXPECT_THAT(errorsOf(policy::parsePolicyToml(
                  withExplore("collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"ll\"\n"), "e.toml")),
              ElementsAre("e.toml:7:1: [experiment.explore] needs weight, a whole number from 0 to 100: the percent of "
                          "communicators its generated arms share"))
      << "no second error about the weights' sum";
  EXPECT_THAT(
      errorsOf(policy::parsePolicyToml(
          withExplore("weight = 5\nbase = \"candidate\"\ncollective = \"allreduce\"\n"
                      "algorithm = [\"ring\", \"Ring\"]\nprotocol = \"ll\"\nchannels = [8, 65, 8]\n"
                      "sise = \"1M\"\n"),
          "e.toml")),
      ElementsAre(HasSubstr("e.toml:14:1: unknown key 'sise' in [experiment.explore]"),
                  "e.toml:9:8: base 'candidate' is not a written arm of this experiment (expected one of: control)",
                  "e.toml:11:22: algorithm 'Ring' is listed twice",
                  "e.toml:13:16: channels must be whole numbers from 0 (NCCL decides) to 64",
                  "e.toml:13:20: channels 8 is listed twice"));
  EXPECT_THAT(
      errorsOf(policy::parsePolicyToml(withExplore("weight = 10\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
                                                   "protocol = \"ll\"\n"),
                                       "e.toml")),
      ElementsAre("e.toml:1:1: arm weights add up to 95 and the explore weight is 10: 105, not 100"));
  std::string clash =
      "[experiment]\nname = \"x\"\n[[experiment.arm]]\nname = \"explore-ring-ll\"\npolicy = \"nccl\"\n"
      "weight = 95\n[experiment.explore]\nweight = 5\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
      "protocol = \"ll\"\n";
  EXPECT_THAT(errorsOf(policy::parsePolicyToml(clash, "e.toml")),
              ElementsAre("e.toml:3:1: arm 'explore-ring-ll' has the name of a generated arm of [experiment.explore] "
                          "(line 7); rename it"));
  EXPECT_THAT(errorsOf(policy::parsePolicyToml(
                  "[experiment]\nname = \"x\"\n[[experiment.arm]]\nname = \"a\"\npolicy = \"nccl\"\n"
                  "weight = 100\n[[experiment.explore]]\nweight = 0\n",
                  "e.toml")),
              ElementsAre(HasSubstr("e.toml:7:1: [experiment.explore] must be one table")));
}

// The assignment is part of the contract (docs/policy-format.md): ranks running different plugin builds must
// agree. Expected values computed independently of this code from the documented function:
// splitmix64(commId XOR FNV-1a-64(name + "/explore")) mod armCount.
TEST(ExploreAssignment, TheGeneratedArmHashIsStableAcrossBuilds) {
  EXPECT_EQ(exploredArmIndex("explore-decode", 0, 9), 1u);
  EXPECT_EQ(exploredArmIndex("explore-decode", 1, 9), 0u);
  EXPECT_EQ(exploredArmIndex("explore-decode", 2, 9), 8u);
  EXPECT_EQ(exploredArmIndex("explore-decode", 3, 9), 4u);
  EXPECT_EQ(exploredArmIndex("explore-decode", 0x5f3c9a0e7d21b4c8ull, 9), 3u);
  EXPECT_EQ(exploredArmIndex("explore-decode", ~0ull, 9), 8u);
  EXPECT_EQ(exploredArmIndex("explore-decode", ~0ull, 6), 5u);
  // The top-level bucket is the existing one: written arms keep their ranges, the explore share is the last.
  EXPECT_EQ(assignmentBucket("explore-decode", 0), 18u);
  EXPECT_EQ(assignmentBucket("explore-decode", 3), 98u);
}

policy::Experiment exploreExperiment(int generatedArms, uint32_t exploreWeight) {
  policy::Experiment e;
  e.name = "explore-decode";
  e.arms = {{"control", 100 - exploreWeight, "inference", {}, nullptr}};
  e.explore.emplace();
  e.explore->weight = exploreWeight;
  for (int i = 0; i < generatedArms; ++i) e.explore->arms.push_back({"g" + std::to_string(i), 0, "", {}, nullptr});
  return e;
}

TEST(ExploreAssignment, TheExploreShareTakesTheLastBucketsAndPicksItsArmByTheSecondHash) {
  policy::Experiment e = exploreExperiment(6, 5);
  EXPECT_EQ(armFor(e, 0).name, "control") << "bucket 18";
  EXPECT_EQ(armFor(e, 3).name, "g1") << "bucket 98, generated arm 1 of 6";
  EXPECT_EQ(armFor(e, 9).name, "g3") << "bucket 98, generated arm 3 of 6";
  EXPECT_EQ(armFor(e, 165).name, "g0") << "bucket 95, the first of the explore share";
  policy::Experiment off = exploreExperiment(6, 0);
  for (uint64_t id = 0; id < 500; ++id) EXPECT_EQ(armFor(off, id).name, "control") << "weight 0 explores nothing";
}

TEST(ExploreAssignment, SharesComeOutNearTheirWeightsAndGeneratedArmsSplitEvenly) {
  policy::Experiment e = exploreExperiment(9, 5);
  std::mt19937_64 random(11);
  std::map<std::string, int> counts;
  const int kComms = 180000;
  for (int i = 0; i < kComms; ++i) ++counts[armFor(e, random()).name];
  EXPECT_NEAR(counts["control"] / static_cast<double>(kComms), 0.95, 0.003);
  for (int i = 0; i < 9; ++i) {
    // 5% over 9 arms: 1000 communicators each expected; 5 standard deviations is about 160.
    EXPECT_NEAR(counts["g" + std::to_string(i)], 1000, 160) << "g" << i;
  }
}

// A loaded exploration experiment over the built-in inference policy (rule: allreduce ..=16K on 2.. nodes, LL).
std::shared_ptr<const policy::ActivePolicy> loadExplore(TempDir& dir, const std::string& explore,
                                                        const std::string& base) {
  dir.writeFile("base.toml", base);
  std::string text =
      "[experiment]\nname = \"explore-decode\"\n[[experiment.arm]]\nname = \"control\"\n"
      "policy = \"base.toml\"\nweight = 95\n[experiment.explore]\nweight = 5\n" +
      explore;
  return policy::loadPolicySpec(dir.writeFile("explore.toml", text), nullptr);
}

const char* const kBasePolicy =
    "[policy]\nname = \"base\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\n"
    "[[rule]]\nname = \"small-ll\"\ncollective = \"allreduce\"\nsize = \"..=16K\"\nnodes = \"2..\"\nprotocol = "
    "\"ll\"\n";

struct Table {
  float cells[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                       {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  CostTable view() { return {&cells[0][0], 7, 3}; }
};

TEST(ExploredPolicy, IsTheExploredRuleThenTheBasePolicyUnderTheArmsName) {
  TempDir dir;
  auto active = loadExplore(dir,
                            "collective = \"allreduce\"\nsize = \"16K..64M\"\nnodes = \"2..\"\nalgorithm = "
                            "\"tree\"\nprotocol = [\"ll128\", \"simple\"]\n",
                            kBasePolicy);
  ASSERT_TRUE(active->error().empty()) << active->error();
  const policy::Exploration& explore = *active->experiment()->explore;
  ASSERT_EQ(explore.arms.size(), 2u);
  const policy::Policy& policy = *explore.arms[1].policy;
  EXPECT_EQ(policy.name, "explore-tree-simple");
  EXPECT_EQ(policy.source, dir.join("explore.toml") + " [experiment.explore] over " + dir.join("base.toml"));
  ASSERT_EQ(policy.rules.size(), 2u);
  EXPECT_EQ(policy.rules[0].name, "explore tree/simple");
  EXPECT_EQ(policy.rules[1].name, "small-ll");
  EXPECT_EQ(policy.env, (std::vector<std::pair<std::string, std::string>>{{"NCCL_IB_QPS_PER_CONNECTION", "2"}}));
  EXPECT_EQ(active->environmentDefaults(), policy.env) << "the experiment's environment defaults are unchanged";
  EXPECT_NE(policy.digest, explore.arms[0].policy->digest);
}

TEST(ExploredPolicy, ForcesItsChoiceInTheExploredCallsFallsBackToNcclAndIsTheBaseElsewhere) {
  TempDir dir;
  auto active = loadExplore(dir,
                            "collective = \"allreduce\"\nsize = \"16K..64M\"\nnodes = \"2..\"\nalgorithm = "
                            "\"tree\"\nprotocol = \"ll128\"\nchannels = 16\n",
                            kBasePolicy);
  ASSERT_TRUE(active->error().empty()) << active->error();
  const auto& arm = active->experiment()->explore->arms.at(0);
  ASSERT_EQ(arm.name, "explore-tree-ll128-ch16");
  CompiledPolicy compiled(arm.policy, 16, 2);
  Table t;
  Decision inside = decide(compiled, {4, 1 << 20, 1, 0}, t.view());
  EXPECT_EQ(inside.outcome, Decision::Outcome::kChosen);
  EXPECT_EQ(inside.rule, 0);
  EXPECT_EQ(inside.algorithm, kTree);
  EXPECT_EQ(inside.protocol, kLL128);
  EXPECT_EQ(inside.channels, 16);
  Table noLL128;
  for (auto& row : noLL128.cells) row[kLL128] = -1;  // NCCL_PROTO=^LL128, or hardware without it
  Decision fallback = decide(compiled, {4, 1 << 20, 1, 0}, noLL128.view());
  EXPECT_EQ(fallback.outcome, Decision::Outcome::kUnavailable) << "NCCL's own choice, not the base's rules";
  EXPECT_EQ(fallback.rule, 0);
  Decision small = decide(compiled, {4, 4096, 1, 0}, t.view());
  EXPECT_EQ(small.rule, 1) << "below the explored sizes the base's rule decides";
  EXPECT_EQ(small.algorithm, kRing);
  EXPECT_EQ(small.protocol, kLL) << "the base: LL on the cheapest algorithm offering it (Ring 18 < Tree 20)";
  EXPECT_EQ(small.channels, 0);
  CompiledPolicy oneNode(arm.policy, 8, 1);
  EXPECT_EQ(decide(oneNode, {4, 1 << 20, 1, 0}, t.view()).outcome, Decision::Outcome::kNoRule);
  EXPECT_EQ(decide(compiled, {2, 1 << 20, 1, 0}, t.view()).outcome, Decision::Outcome::kNoRule) << "all-gather";
}

// An explored rule may cover a base rule entirely (first match makes that well defined): the generated policy
// is not linted for shadowing, and the lookup and explain take it as it is.
TEST(ExploredPolicy, ABaseRuleTheExploredRuleCoversIsShadowedWithoutErrors) {
  TempDir dir;
  auto active = loadExplore(dir, "collective = \"*\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n", kBasePolicy);
  ASSERT_TRUE(active->error().empty()) << active->error();
  const auto& arm = active->experiment()->explore->arms.at(0);
  CompiledPolicy compiled(arm.policy, 16, 2);
  EXPECT_EQ(compiled.applicableRules(), 2u);
  EXPECT_EQ(compiled.candidates(4, 4096).size(), 1u) << "the lookup stops at the explored rule";
  Table t;
  Decision d = decide(compiled, {4, 4096, 1, 0}, t.view());
  EXPECT_EQ(d.rule, 0);
  EXPECT_EQ(d.algorithm, kRing);
  EXPECT_EQ(d.protocol, kSimple);
  uint64_t commId = 0;
  while (armFor(*active->experiment(), commId).name != arm.name) ++commId;
  std::string text = inspect::explainCall(*active, {16, 2, commId, {4, 4096, 1, 0}});
  EXPECT_THAT(text, HasSubstr("the arm 'explore-ring-simple'"));
  EXPECT_THAT(text, HasSubstr("rule: line 7 'explore ring/simple' matches"));
  EXPECT_THAT(text, HasSubstr("NCCL is told: cost 0.0 on Ring/Simple"));
}

TEST(ExploredPolicy, OverAnNcclCsvBaseAnUnavailableChoicePassesToTheBasesRulesAsCsvDoes) {
  TempDir dir;
  dir.writeFile("base.csv", "allreduce,0,65536,tree,ll,-1,-1,-1\n");
  std::string text =
      "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = \"control\"\npolicy = \"base.csv\"\n"
      "weight = 95\n[experiment.explore]\nweight = 5\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
      "protocol = \"ll128\"\n";
  auto active = policy::loadPolicySpec(dir.writeFile("e.toml", text), nullptr);
  ASSERT_TRUE(active->error().empty()) << active->error();
  const auto& arm = active->experiment()->explore->arms.at(0);
  EXPECT_TRUE(arm.policy->unavailableFallsThrough);
  Table t;
  t.cells[kRing][kLL128] = -1;
  Decision d = decide(CompiledPolicy(arm.policy, 16, 2), {4, 4096, 1, 0}, t.view());
  EXPECT_EQ(d.rule, 1);
  EXPECT_EQ(d.algorithm, kTree);
  EXPECT_EQ(d.protocol, kLL);
}

TEST(ExploredPolicy, TheExperimentsDigestChangesWithTheBaseFileAndTheExploreTable) {
  TempDir dir;
  const std::string explore = "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"ll\"\n";
  std::string before = loadExplore(dir, explore, kBasePolicy)->digest();
  EXPECT_EQ(loadExplore(dir, explore, kBasePolicy)->digest(), before) << "deterministic";
  EXPECT_NE(loadExplore(dir, explore, std::string(kBasePolicy) + "channels = 4\n")->digest(), before);
  EXPECT_NE(loadExplore(dir, "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n", kBasePolicy)
                ->digest(),
            before);
}

TEST(ExploredPolicy, AnExperimentWithAnUnusableExploreTableIsThePassthrough) {
  TempDir dir;
  std::vector<policy::PolicyError> errors;
  auto active =
      policy::loadPolicySpec(dir.writeFile("e.toml", withExplore("weight = 5\ncollective = \"broadcast\"\n"
                                                                 "algorithm = \"tree\"\nprotocol = \"ll\"\n")),
                             &errors);
  EXPECT_THAT(active->error(), HasSubstr("e.toml:10:13: NCCL never runs Tree for Broadcast"));
  EXPECT_FALSE(active->experiment().has_value());
  EXPECT_EQ(tuner::assignPolicy(*active, 3).policy->name, "nccl");
}

// Statistics count decisions by rule name: a base rule named like the rule an arm puts before it would add up with it.
TEST(ExploredPolicy, ABaseRuleNamedLikeTheGeneratedRuleIsRefused) {
  TempDir dir;
  auto active = loadExplore(dir, "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"ll\"\n",
                            "[policy]\nname = \"base\"\n[[rule]]\nname = \"explore ring/ll\"\nprotocol = \"simple\"\n");
  EXPECT_EQ(active->error(), dir.join("base.toml") +
                                 ":3:1: rule name 'explore ring/ll' is the name of a rule "
                                 "[experiment.explore] of " +
                                 dir.join("explore.toml") + " generates from this policy; rename it");
}

// Each generated arm copies the base's rules: 64 arms over a base of 1000 rules would hold 64,064.
TEST(ExploredPolicy, ArmsTimesBaseRulesAreBoundedSoAnExperimentStaysSmall) {
  TempDir dir;
  std::string base = "[policy]\nname = \"big\"\n";
  for (int i = 0; i < 1000; ++i) {
    base += "[[rule]]\ncollective = \"allgather\"\nsize = \"" + std::to_string(i * 4) + "K.." +
            std::to_string(i * 4 + 4) + "K\"\nprotocol = \"simple\"\n";
  }
  std::string channels;
  for (int c = 0; c < 32; ++c) channels += (c ? ", " : "") + std::to_string(c);
  auto active = loadExplore(dir,
                            "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = [\"ll\", \"simple\"]\n"
                            "channels = [" +
                                channels + "]\n",
                            base);
  EXPECT_THAT(active->error(), HasSubstr("64 generated arms, each with the base policy's rules, would hold 64064 rules "
                                         "(at most 32768)"));
  EXPECT_EQ(
      loadExplore(dir, "collective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = [\"ll\", \"simple\"]\n", base)
          ->error(),
      "")
      << "2 arms over the same base are fine";
}

}  // namespace
}  // namespace nccl_roce::tuner

namespace nccl_roce::tuner {
namespace {

// [experiment.explore] in a switchback: the generated arms share the explored turns of every communicator (not
// a slice of communicators), the reference is the written control, and explain says so.
TEST(ExploredSwitchback, GeneratedArmsTakeTurnsInsideEveryCommunicator) {
  TempDir dir;
  std::string text =
      "[experiment]\nname = \"e\"\ndesign = \"switchback\"\nblock = 8\n[[experiment.arm]]\nname = \"control\"\n"
      "policy = \"inference\"\nweight = 40\n[experiment.explore]\nweight = 60\ncollective = \"allreduce\"\n"
      "nodes = \"2..\"\nalgorithm = [\"ring\", \"tree\"]\nprotocol = [\"ll\", \"simple\"]\n";
  auto active = policy::loadPolicySpec(dir.writeFile("e.toml", text), nullptr);
  ASSERT_TRUE(active->error().empty()) << active->error();
  SwitchbackSchedule schedule(*active->experiment(), 0x77);
  ASSERT_EQ(schedule.arms().size(), 5u);
  std::map<std::string, int> turns;
  for (uint64_t t = 0; t < 10000; ++t) ++turns[schedule.arms()[schedule.armOf(t)]->name];
  EXPECT_EQ(turns["control"], 4000);
  for (const char* arm : {"explore-ring-ll", "explore-ring-simple", "explore-tree-ll", "explore-tree-simple"}) {
    EXPECT_NEAR(turns[arm], 1500, 200) << arm;
  }
  std::string explained = inspect::explainCall(*active, {16, 2, 0x77, {4, 1 << 20, 1, 0}});
  EXPECT_THAT(explained, HasSubstr("runs every arm in turns of 8 tuner calls"));
  EXPECT_THAT(explained, HasSubstr("explore-tree-ll: 15% of turns, forces Tree/LL"));
}

}  // namespace
}  // namespace nccl_roce::tuner

// `ab fit` on small fleets with a plain truth: what becomes a rule (the winning arm's own configuration, over
// neighbouring measured buckets, per node count), what does not (NCCL's choice, an unavailable or mixed choice,
// buckets where nothing is faster), and the refusal that says what to collect. Every policy written loads clean.
#include "fleet/ab_fit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/ab_fit_policy_text.h"
#include "fleet/ab_fit_report.h"
#include "policy/policy_loader.h"
#include "telemetry/chunk_size.h"

namespace nccl_roce::fleet {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kAllReduce = 4, kTree = 0, kRing = 1, kLL = 0, kLL128 = 1;

const TunerDecision kNcclChose{{kRing, kLL128, 0}, DecisionSource::kNccl, ""};
const TunerDecision kRingLL{{kRing, kLL, 0}, DecisionSource::kRule, "explore ring/ll"};
const TunerDecision kTreeLL{{kTree, kLL, 0}, DecisionSource::kRule, "explore tree/ll"};

struct Arm {
  explicit Arm(std::string armName) : name(std::move(armName)) {}
  std::string name;
  int communicators = 12;  // above the minimum (kAbFitMinCommunicators)
  int nodes = 2;
  std::map<int, double> ratio;          // bucket -> true time relative to the control's (absent: 1)
  TunerDecision decision = kNcclChose;  // what decided every call
};

// Every communicator times 20 all-reduces of each bucket at 40 us x the arm's ratio x a spread of +-6% across
// communicators (the same spread in every arm, so equal arms tie exactly).
void add(Fleet& fleet, const Arm& arm, const std::vector<int>& buckets) {
  static uint64_t id = 0;
  for (int i = 0; i < arm.communicators; ++i) {
    FleetCommunicator c;
    c.commId = ++id;
    c.arm = arm.name;
    c.nNodes = arm.nodes;
    double spread = 1 + 0.03 * (i % 5 - 2);
    for (int bucket : buckets) {
      auto r = arm.ratio.find(bucket);
      double us = 40 * spread * (r == arm.ratio.end() ? 1.0 : r->second);
      uint64_t cell = cellOf(kAllReduce, bucket);
      CellTiming& timing = c.timings[TimingClock::kGpu][cell];
      for (int k = 0; k < 20; ++k) {
        timing.durations.add(
            {1, static_cast<uint64_t>(telemetry::LogHistogram::binOf(static_cast<uint64_t>(us * 1000)))});
      }
      timing.collectives = 20;
      c.decisions[cell][arm.decision] = 20;
    }
    fleet.communicators.push_back(std::move(c));
  }
}

Fleet fleetOf(const std::vector<Arm>& arms, const std::vector<int>& buckets) {
  Fleet fleet;
  fleet.experiment = "explore-allreduce";
  for (const Arm& arm : arms) add(fleet, arm, buckets);
  return fleet;
}

AbFit fitted(const Fleet& fleet) {
  StatusOr<AbFit> fit = fitArms(fleet, AbFitOptions{});
  EXPECT_TRUE(fit.isOk()) << fit.status().toString();
  return fit.isOk() ? *fit : AbFit{};
}

// The policy as the plugin would load it: no errors.
void expectLoadsClean(const std::string& policy) {
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicyText(policy, "fitted.toml", &errors);
  for (const policy::PolicyError& e : errors) ADD_FAILURE() << e.toString() << "\n" << policy;
  EXPECT_TRUE(active->error().empty()) << active->error();
}

TEST(AbFit, AnArmFasterBeyondTheNoiseBecomesItsOwnRuleOverNeighbouringBuckets) {
  Arm control{"control"};
  Arm ringLL{"explore-ring-ll"};
  ringLL.ratio = {{16, 0.9}, {17, 0.9}};
  ringLL.decision = kRingLL;
  AbFit fit = fitted(fleetOf({control, ringLL}, {15, 16, 17, 18}));
  ASSERT_EQ(fit.rules.size(), 1u);
  const FittedRule& rule = fit.rules[0];
  EXPECT_EQ(rule.arm, "explore-ring-ll");
  EXPECT_EQ(rule.nodes, 2);
  EXPECT_EQ(rule.firstBucket, 16);
  EXPECT_EQ(rule.lastBucket, 17);
  EXPECT_EQ(rule.configuration.describe(), "Ring/LL");
  EXPECT_EQ(fit.challenges, 4);
  std::string policy = abFitPolicyToml(fit);
  EXPECT_THAT(policy, HasSubstr("size = \"64K..256K\"\nnodes = 2\nalgorithm = \"ring\"\nprotocol = \"ll\"\n"));
  EXPECT_THAT(policy, HasSubstr("collective = \"allreduce\""));
  EXPECT_THAT(policy, HasSubstr("# explore-ring-ll for allreduce on 2 nodes, 64K..256K: Ring/LL (its rule "
                                "\"explore ring/ll\")"));
  EXPECT_THAT(policy, HasSubstr("#   64K-128K: 12/12, 240/240, "));
  const CellFit& at64K = fit.cells.at(1);
  ASSERT_TRUE(at64K.winner.has_value());
  EXPECT_NEAR(at64K.challenges[*at64K.winner].vsControl.ratio, 0.9, 0.01) << "within the histograms' 1%";
  EXPECT_THAT(policy, HasSubstr("Benjamini-Hochberg"));
  EXPECT_THAT(policy, HasSubstr("over all 4 arm x bucket challenges"));
  EXPECT_THAT(policy, HasSubstr("No change (no arm beat the control): allreduce on 2 nodes: 32K..64K, 256K..512K"));
  expectLoadsClean(policy);
}

TEST(AbFit, NodeCountsNeverPool) {
  Arm control2{"control"}, control4{"control"};
  control4.nodes = 4;
  Arm faster2{"explore-ring-ll"}, same4{"explore-ring-ll"};
  faster2.ratio = {{16, 0.9}};
  faster2.decision = same4.decision = kRingLL;
  same4.nodes = 4;
  AbFit fit = fitted(fleetOf({control2, control4, faster2, same4}, {16}));
  ASSERT_EQ(fit.cells.size(), 2u) << "one per node count";
  ASSERT_EQ(fit.rules.size(), 1u);
  EXPECT_EQ(fit.rules[0].nodes, 2);
  std::string policy = abFitPolicyToml(fit);
  EXPECT_THAT(policy, HasSubstr("nodes = 2\n"));
  EXPECT_THAT(policy, Not(HasSubstr("nodes = 4\n")));
  EXPECT_THAT(policy, HasSubstr("allreduce on 4 nodes: 64K..128K"));
  expectLoadsClean(policy);
}

TEST(AbFit, AnUnmeasuredBucketIsNeverBridgedNorAreDifferentConfigurationsMerged) {
  Arm control{"control"}, ringLL{"explore-ring-ll"}, treeLL{"explore-tree-ll"};
  ringLL.ratio = {{14, 0.9}, {16, 0.9}};
  ringLL.decision = kRingLL;
  treeLL.ratio = {{17, 0.9}};
  treeLL.decision = kTreeLL;
  AbFit fit = fitted(fleetOf({control, ringLL, treeLL}, {14, 16, 17}));  // 15 (32K) unmeasured
  ASSERT_EQ(fit.rules.size(), 3u);
  EXPECT_EQ(fit.rules[0].firstBucket, 14);
  EXPECT_EQ(fit.rules[0].lastBucket, 14);
  EXPECT_EQ(fit.rules[1].firstBucket, 16);
  EXPECT_EQ(fit.rules[1].lastBucket, 16);
  EXPECT_EQ(fit.rules[2].arm, "explore-tree-ll");
  std::string policy = abFitPolicyToml(fit);
  EXPECT_THAT(policy, HasSubstr("size = \"16K..32K\""));
  EXPECT_THAT(policy, HasSubstr("size = \"64K..128K\"\nnodes = 2\nalgorithm = \"ring\""));
  EXPECT_THAT(policy, HasSubstr("size = \"128K..256K\"\nnodes = 2\nalgorithm = \"tree\""));
  expectLoadsClean(policy);
}

// Arms that run the same algorithm and protocol with different chunk sizes are different configurations: the
// faster one's chunk size goes into its rule, and the arms are never merged into one.
TEST(AbFit, AChunkSizeIsPartOfTheConfigurationAnArmRanAndGoesIntoItsRule) {
  constexpr int kSimple = 2;
  Arm control{"control"}, plain{"explore-ring-simple"}, bigChunk{"explore-ring-simple-chunk1m"},
      halved{"explore-ring-simple-chunkx0.5"};
  plain.decision = {{kRing, kSimple, 0}, DecisionSource::kRule, "explore ring/simple"};
  bigChunk.decision = {{kRing, kSimple, 0, 1u << 20}, DecisionSource::kRule, "explore ring/simple chunk 1M"};
  halved.decision = {{kRing, kSimple, 0, telemetry::ChunkSize::scaled(-1).code()},
                     DecisionSource::kRule,
                     "explore ring/simple chunk x0.5"};
  bigChunk.ratio = {{22, 0.85}, {23, 0.85}};
  halved.ratio = {{16, 0.88}};
  AbFit fit = fitted(fleetOf({control, plain, bigChunk, halved}, {16, 22, 23}));
  ASSERT_EQ(fit.rules.size(), 2u);
  EXPECT_EQ(fit.rules[0].arm, "explore-ring-simple-chunkx0.5");
  EXPECT_EQ(fit.rules[0].configuration.describe(), "Ring/Simple, chunk NCCL's x0.5");
  EXPECT_EQ(fit.rules[1].arm, "explore-ring-simple-chunk1m");
  EXPECT_EQ(fit.rules[1].configuration.describe(), "Ring/Simple, chunk 1M");
  std::string policy = abFitPolicyToml(fit);
  EXPECT_THAT(policy, HasSubstr("name = \"ab-allreduce-2n-ring-simple-chunkx0.5-64K..128K\"\n"));
  EXPECT_THAT(policy, HasSubstr("name = \"ab-allreduce-2n-ring-simple-chunk1m-4M..16M\"\ncollective = \"allreduce\"\n"
                                "size = \"4M..16M\"\nnodes = 2\nalgorithm = \"ring\"\nprotocol = \"simple\"\n"
                                "chunk_size = \"1M\"\n"));
  EXPECT_THAT(policy, HasSubstr("chunk_size = \"x0.5\"\n"));
  expectLoadsClean(policy);
}

TEST(AbFit, AWinnerWhoseCallsItsRulesDidNotDecideGivesNoRuleAndSaysWhy) {
  Arm control{"control"}, arm{"explore-ring-ll"};
  arm.ratio = {{16, 0.9}};  // faster, but NCCL chose: no rule of the arm matched
  AbFit fit = fitted(fleetOf({control, arm}, {16}));
  ASSERT_TRUE(fit.cells.at(0).winner.has_value()) << "the arm did beat the control";
  EXPECT_TRUE(fit.rules.empty());
  std::string notes;
  for (const std::string& n : fit.notes) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("AllReduce 64K-128K on 2 nodes: arm 'explore-ring-ll' beat the control"));
  EXPECT_THAT(notes, HasSubstr("NCCL chose for all its calls there"));
  std::string policy = abFitPolicyToml(fit);
  EXPECT_THAT(policy, Not(HasSubstr("[[rule]]")));
  EXPECT_THAT(policy, HasSubstr("# No change: none")) << "a bucket an arm won is no 'no change', even without a rule";
  EXPECT_THAT(policy, HasSubstr("# Note: AllReduce 64K-128K on 2 nodes: arm 'explore-ring-ll' beat the control"));
  expectLoadsClean(policy);
}

TEST(AbFit, WhatAnArmRanIsItsRulesChoiceOnlyWhenItDecidedNineCallsInTen) {
  std::string why;
  auto ring = configurationOf({{kRingLL, 95}, {kNcclChose, 5}}, &why);
  ASSERT_TRUE(ring.has_value());
  EXPECT_EQ(ring->rule, "explore ring/ll");
  EXPECT_DOUBLE_EQ(ring->share, 0.95);
  EXPECT_FALSE(configurationOf({{kRingLL, 60}, {kTreeLL, 40}}, &why));
  EXPECT_THAT(why, HasSubstr("no one configuration of its rules decided 90% of its calls: Ring/LL by rules 60%, "
                             "Tree/LL by rules 40%"));
  TunerDecision unavailable{{kRing, kLL128, 0}, DecisionSource::kUnavailable, "explore tree/ll"};
  EXPECT_FALSE(configurationOf({{unavailable, 100}}, &why));
  EXPECT_THAT(why, HasSubstr("its rule's choices were unavailable, so NCCL chose"));
  EXPECT_FALSE(configurationOf({}, &why));
  EXPECT_THAT(why, HasSubstr("no tuner decisions"));
  TunerDecision channelsOnly{{kRing, kLL128, 16}, DecisionSource::kRule, "more channels"};
  auto channels = configurationOf({{channelsOnly, 20}}, &why);
  ASSERT_TRUE(channels.has_value());
  EXPECT_EQ(channels->describe(), "Ring/LL128, 16 channels");
}

TEST(AbFit, TooFewCommunicatorsRefusesSayingWhatToCollect) {
  Arm control{"control"}, arm{"explore-ring-ll"};
  control.communicators = 30;
  arm.communicators = 5;
  arm.ratio = {{16, 0.8}};
  StatusOr<AbFit> fit = fitArms(fleetOf({control, arm}, {16, 17}), AbFitOptions{});
  ASSERT_FALSE(fit.isOk());
  EXPECT_EQ(fit.status().code(), StatusCode::kFailedPrecondition);
  const std::string& message = fit.status().message();
  EXPECT_THAT(message, HasSubstr("arm 'explore-ring-ll' has at most 5 communicators per size bucket"));
  EXPECT_THAT(message, HasSubstr("the control 'control' at most 30"));
  EXPECT_THAT(message, HasSubstr("ab fit needs " + std::to_string(kAbFitMinCommunicators)));
  EXPECT_THAT(message, HasSubstr("run the experiment longer"));
  EXPECT_THAT(message, HasSubstr("raise the weight of 'explore-ring-ll' (the control has communicators to spare)"));
  EXPECT_THAT(message, Not(HasSubstr("weight of the control")));
}

// Weights share out the communicators there are: the advice names only the side that lacks them, and only while
// the other has some to spare.
TEST(AbFit, WeightAdviceNamesOnlyTheSideThatLacksCommunicators) {
  Arm control{"control"}, arm{"explore-ring-ll"};
  control.communicators = 4;
  arm.communicators = 40;
  arm.ratio = {{16, 0.8}};
  StatusOr<AbFit> thinControl = fitArms(fleetOf({control, arm}, {16}), AbFitOptions{});
  ASSERT_FALSE(thinControl.isOk());
  EXPECT_THAT(thinControl.status().message(),
              HasSubstr("raise the weight of the control 'control' (the arms have communicators to spare)"));
  EXPECT_THAT(thinControl.status().message(), Not(HasSubstr("weight of 'explore-ring-ll'")));
  arm.communicators = 6;
  StatusOr<AbFit> bothThin = fitArms(fleetOf({control, arm}, {16}), AbFitOptions{});
  ASSERT_FALSE(bothThin.isOk());
  EXPECT_THAT(bothThin.status().message(),
              HasSubstr("run the experiment longer (more communicators): the control 'control' lacks them as well as "
                        "'explore-ring-ll', so moving weight between them cannot help"));
  EXPECT_THAT(bothThin.status().message(), Not(HasSubstr("raise the weight")));
}

TEST(AbFit, GroupsBelowTheMinimumAreLeftOutAndNamed) {
  Arm control2{"control"}, control4{"control"}, arm2{"explore-ring-ll"}, arm4{"explore-ring-ll"};
  control4.nodes = arm4.nodes = 4;
  arm4.communicators = 3;
  arm2.decision = arm4.decision = kRingLL;
  AbFit fit = fitted(fleetOf({control2, control4, arm2, arm4}, {16}));
  ASSERT_EQ(fit.cells.size(), 1u);
  EXPECT_EQ(fit.cells[0].nodes, 2);
  ASSERT_FALSE(fit.notes.empty());
  EXPECT_THAT(fit.notes[0], HasSubstr("arm 'explore-ring-ll' on 4 nodes, AllReduce: left out"));
  EXPECT_THAT(fit.notes[0], HasSubstr("64K-128K (12/3)"));
}

TEST(AbFit, NothingToCompareIsAnError) {
  Arm arm{"explore-ring-ll"};
  StatusOr<AbFit> noControl = fitArms(fleetOf({arm}, {16}), AbFitOptions{});
  ASSERT_FALSE(noControl.isOk());
  EXPECT_THAT(noControl.status().message(), HasSubstr("no timed communicator of the control arm 'control'"));
  StatusOr<AbFit> onlyControl = fitArms(fleetOf({Arm{"control"}}, {16}), AbFitOptions{});
  ASSERT_FALSE(onlyControl.isOk());
  EXPECT_THAT(onlyControl.status().message(), HasSubstr("nothing to fit"));
}

TEST(AbFit, TheControlsOwnRulesAreNotedBecauseBucketsWithoutARuleFallToNccl) {
  Arm control{"control"}, arm{"explore-ring-ll"};
  control.decision = kTreeLL;
  AbFit fit = fitted(fleetOf({control, arm}, {16}));
  ASSERT_FALSE(fit.notes.empty());
  EXPECT_THAT(fit.notes.back(), HasSubstr("the control arm 'control' decided 100% of its calls in the fitted "
                                          "buckets by its own policy's rules"));
}

TEST(AbFit, NamesFromHandEditedStatisticsCannotBreakThePolicy) {
  Arm control{"control"}, arm{"explore\n[[rule]]\"x"};
  arm.ratio = {{16, 0.9}};
  arm.decision = TunerDecision{{kRing, kLL, 0}, DecisionSource::kRule, "line\nbreak"};
  Fleet fleet = fleetOf({control, arm}, {16});
  fleet.experiment = "exp\x01\"eriment";
  AbFitOptions options;
  options.policyName = "name \"quoted\"\t";
  StatusOr<AbFit> fit = fitArms(fleet, options);
  ASSERT_TRUE(fit.isOk()) << fit.status().toString();
  ASSERT_EQ(fit->rules.size(), 1u);
  std::string policy = abFitPolicyToml(*fit);
  EXPECT_THAT(policy, HasSubstr("# explore?[[rule]]\"x for allreduce"));
  expectLoadsClean(policy);
}

TEST(AbFit, TheReportAndJsonCarryEveryChallenge) {
  Arm control{"control"}, arm{"explore-ring-ll"};
  arm.ratio = {{16, 0.9}};
  arm.decision = kRingLL;
  AbFit fit = fitted(fleetOf({control, arm}, {16, 17}));
  std::string report = abFitToMarkdown(fit);
  EXPECT_THAT(report, HasSubstr("| 64K-128K | explore-ring-ll | 12 / 12 | 240 / 240 | "));
  EXPECT_THAT(report, HasSubstr("| Ring/LL (100%) | **rule** |"));
  nlohmann::ordered_json json = abFitToJson(fit);
  EXPECT_EQ(json["schema"], "nccl-roce.ab-fit/1");
  EXPECT_EQ(json["rules"].size(), 1u);
  EXPECT_EQ(json["rules"][0]["size"], "64K..128K");
  EXPECT_EQ(json["rules"][0]["algorithm"], "Ring");
  EXPECT_EQ(json["cells"].size(), 2u);
  EXPECT_EQ(json["cells"][1]["winner"], nullptr);
}

}  // namespace
}  // namespace nccl_roce::fleet

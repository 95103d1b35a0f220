// What NCCL_ROCE_POLICY names, loaded: built-ins, files in both formats, experiments, and what happens when a
// policy is broken (the `nccl` passthrough and the reason, never a failure).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "common/env.h"
#include "policy/builtin_policies.h"
#include "policy/policy_loader.h"
#include "tests/support/temp_dir.h"
#include "tuner/experiment.h"

namespace nccl_roce::tuner {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

TEST(BuiltinPolicies, AreTheShippedFilesAndLintClean) {
  EXPECT_EQ(policy::builtinPolicyNames(), (std::vector<std::string>{"nccl", "inference"}));
  for (const auto& name : policy::builtinPolicyNames()) {
    std::vector<policy::PolicyError> errors;
    auto policy = policy::loadSinglePolicy(name, &errors);
    ASSERT_NE(policy, nullptr) << name << ": " << policy::joinErrors(errors);
    EXPECT_EQ(policy->name, name);
    EXPECT_EQ(policy->source, "builtin:" + name);
  }
  EXPECT_TRUE(policy::loadSinglePolicy("nccl", nullptr)->rules.empty()) << "the passthrough has no rules";
  EXPECT_TRUE(policy::loadSinglePolicy("inference", nullptr)->env.empty()) << "no environment default has evidence yet";
}

TEST(LoadPolicySpec, UnsetMeansTheDefaultInferencePolicy) {
  auto active = policy::loadPolicySpec("", nullptr);
  EXPECT_TRUE(active->error().empty()) << active->error();
  EXPECT_EQ(tuner::assignPolicy(*active, 42).policy->name, policy::kDefaultPolicyName);
  EXPECT_EQ(tuner::assignPolicy(*active, 42).arm, "");
}

TEST(LoadPolicySpec, ABrokenPolicyBecomesThePassthroughWithItsReason) {
  TempDir dir;
  std::string path = dir.writeFile("p.toml", "[policy]\nname = \"x\"\n[[rule]]\nprotocol = \"ll65\"\n");
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicySpec(path, &errors);
  EXPECT_THAT(active->error(), HasSubstr("p.toml:4:12: unknown protocol 'll65'"));
  EXPECT_EQ(tuner::assignPolicy(*active, 1).policy->name, "nccl");
  EXPECT_EQ(errors.size(), 1u);
}

TEST(LoadPolicySpec, AMissingFileOrUnknownNameSaysWhichBuiltinsExist) {
  auto active = policy::loadPolicySpec("inferense", nullptr);
  EXPECT_THAT(active->error(), HasSubstr("cannot read policy"));
  EXPECT_THAT(active->error(), HasSubstr("not a built-in policy either: nccl, inference"));
  EXPECT_EQ(tuner::assignPolicy(*active, 1).policy->name, "nccl");
}

TEST(LoadPolicySpec, ReadsNcclExampleCsvByItsName) {
  TempDir dir;
  std::string path = dir.writeFile("nccl_tuner.conf", "allreduce,0,65536,tree,ll,-1,-1,-1\n");
  auto active = policy::loadPolicySpec(path, nullptr);
  ASSERT_TRUE(active->error().empty()) << active->error();
  EXPECT_TRUE(tuner::assignPolicy(*active, 0).policy->unavailableFallsThrough);
}

TEST(LoadPolicySpec, ExperimentArmsLoadRelativeToTheExperimentFile) {
  TempDir dir;
  dir.writeFile("candidate.toml",
                "[policy]\nname = \"cand\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\n"
                "NCCL_IB_TC = \"106\"\n[[rule]]\nprotocol = \"ll\"\n");
  dir.writeFile("other.toml", "[policy]\nname = \"other\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\n");
  std::string path = dir.writeFile("ab.toml",
                                   "[experiment]\nname = \"e\"\n"
                                   "[[experiment.arm]]\nname = \"a\"\npolicy = \"candidate.toml\"\nweight = 30\n"
                                   "[[experiment.arm]]\nname = \"b\"\npolicy = \"other.toml\"\nweight = 70\n");
  auto active = policy::loadPolicySpec(path, nullptr);
  ASSERT_TRUE(active->error().empty()) << active->error();
  ASSERT_TRUE(active->experiment().has_value());
  EXPECT_EQ(active->environmentDefaults(),
            (std::vector<std::pair<std::string, std::string>>{{"NCCL_IB_QPS_PER_CONNECTION", "2"}}))
      << "only what every arm agrees on: the environment is per process, arms are per communicator";
  std::map<std::string, int> arms;
  for (uint64_t id = 0; id < 2000; ++id) ++arms[tuner::assignPolicy(*active, id * 0x9e3779b97f4a7c15ull).arm];
  EXPECT_NEAR(arms["a"], 600, 90);
  EXPECT_NEAR(arms["b"], 1400, 90);
}

// An inline experiment (NCCL_ROCE_POLICY_INLINE) has no file to be relative to, and the process's working
// directory is vLLM's: a relative arm path is refused at the arm, an absolute one or a built-in name is read.
TEST(LoadPolicyText, AnInlineExperimentsArmsAreAbsolutePathsOrBuiltinNames) {
  TempDir dir;
  std::string candidate = dir.writeFile("candidate.toml", "[policy]\nname = \"cand\"\n[[rule]]\nprotocol = \"ll\"\n");
  const std::string head =
      "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 50\n";
  std::vector<policy::PolicyError> errors;
  auto relative = policy::loadPolicyText(
      head + "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"candidate.toml\"\nweight = 50\n",
      "NCCL_ROCE_POLICY_INLINE", &errors);
  EXPECT_FALSE(relative->experiment().has_value());
  EXPECT_THAT(relative->error(), HasSubstr("NCCL_ROCE_POLICY_INLINE:7:1: arm 'candidate': policy 'candidate.toml' "
                                           "is a relative path, and inline text has no directory"));
  auto absolute = policy::loadPolicyText(
      head + "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"" + candidate + "\"\nweight = 50\n",
      "NCCL_ROCE_POLICY_INLINE", nullptr);
  EXPECT_TRUE(absolute->error().empty()) << absolute->error();
  EXPECT_TRUE(absolute->experiment().has_value());
}

TEST(LoadPolicySpec, AnExperimentWithABrokenArmIsThePassthrough) {
  TempDir dir;
  std::string path = dir.writeFile("ab.toml",
                                   "[experiment]\nname = \"e\"\n"
                                   "[[experiment.arm]]\nname = \"a\"\npolicy = \"missing.toml\"\nweight = 100\n");
  std::vector<policy::PolicyError> errors;
  auto active = policy::loadPolicySpec(path, &errors);
  EXPECT_THAT(active->error(), HasSubstr("ab.toml:3:1: arm 'a': policy 'missing.toml' is unusable"));
  EXPECT_GE(errors.size(), 2u);
  EXPECT_FALSE(active->experiment().has_value());
}

TEST(Experiment, AssignmentIsAPureFunctionOfNameAndCommId) {
  policy::Experiment e;
  e.name = "decode-ll";
  e.arms = {{"a", 50, "nccl", {}, nullptr}, {"b", 50, "inference", {}, nullptr}};
  for (uint64_t id : {0ull, 1ull, 0xdeadbeefull, ~0ull}) {
    EXPECT_EQ(&armFor(e, id), &armFor(e, id));
    EXPECT_LT(assignmentBucket(e.name, id), 100u);
  }
  std::set<uint32_t> buckets;
  for (uint64_t id = 0; id < 1000; ++id) buckets.insert(assignmentBucket("decode-ll", id));
  EXPECT_GT(buckets.size(), 95u) << "consecutive ids spread over the buckets";
  EXPECT_NE(assignmentBucket("x", 7), assignmentBucket("y", 7)) << "experiments are independent";
}

// The assignment is part of the plugin's contract: during a rollout, ranks of one job may run two plugin
// builds, and if the hash changed they would pick different arms and hang. These values are the documented
// function (docs/policy-format.md: splitmix64 finaliser of commId XOR FNV-1a-64(name), modulo 100),
// computed independently of this code.
TEST(Experiment, TheAssignmentHashIsStableAcrossBuilds) {
  EXPECT_EQ(assignmentBucket("decode-ll", 0), 3u);
  EXPECT_EQ(assignmentBucket("decode-ll", 1), 25u);
  EXPECT_EQ(assignmentBucket("decode-ll", 0x5f3c9a0e7d21b4c8ull), 99u);
  EXPECT_EQ(assignmentBucket("decode-ll", ~0ull), 31u);
}

TEST(Experiment, ArmsGetTheirWeightsShareOfCommunicators) {
  policy::Experiment e;
  e.name = "canary";
  e.arms = {{"control", 90, "nccl", {}, nullptr}, {"candidate", 10, "inference", {}, nullptr}};
  std::mt19937_64 random(3);
  int candidate = 0;
  const int kComms = 20000;
  for (int i = 0; i < kComms; ++i) candidate += armFor(e, random()).name == "candidate";
  EXPECT_NEAR(candidate / static_cast<double>(kComms), 0.10, 0.01);
}

TEST(Experiment, ZeroWeightArmsAreNeverChosen) {
  policy::Experiment e;
  e.name = "rollout";
  e.arms = {{"off", 0, "nccl", {}, nullptr}, {"on", 100, "inference", {}, nullptr}};
  for (uint64_t id = 0; id < 500; ++id) EXPECT_EQ(armFor(e, id).name, "on");
}

}  // namespace
}  // namespace nccl_roce::tuner

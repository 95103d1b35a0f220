// The policies a process context keeps: each NCCL_ROCE_POLICY value read once and kept whatever happens to the
// file, one lookup per communicator shape shared by the communicators of that shape, problems reported by the
// first communicator only. Each context has its own: nothing is shared through statics.
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/env.h"
#include "plugin/policy_registry.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using testing::TempDir;

TEST(PolicyRegistry, APolicyIsLoadedOnceAndKeptWhateverHappensToTheFile) {
  TempDir dir;
  std::string path = dir.writeFile("p.toml", "[policy]\nname = \"first\"\n");
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", path}});
  PolicyRegistry policies;
  auto first = policies.active(env).policy;
  dir.writeFile("p.toml", "[policy]\nname = \"second\"\n");
  EXPECT_EQ(policies.active(env).policy, first);
  ::unlink(path.c_str());
  EXPECT_EQ(policies.active(env).policy->assign(0).policy->name, "first");
}

TEST(PolicyRegistry, EachContextLoadsItsOwn) {
  TempDir dir;
  std::string path = dir.writeFile("p.toml", "[policy]\nname = \"first\"\n");
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", path}});
  PolicyRegistry one;
  EXPECT_EQ(one.active(env).policy->assign(0).policy->name, "first");
  dir.writeFile("p.toml", "[policy]\nname = \"second\"\n");
  PolicyRegistry other;  // another process
  EXPECT_EQ(other.active(env).policy->assign(0).policy->name, "second");
  EXPECT_EQ(one.active(env).policy->assign(0).policy->name, "first");
}

TEST(PolicyRegistry, OnlyTheFirstCommunicatorReportsAPolicysProblems) {
  TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{
      {"NCCL_ROCE_POLICY", dir.writeFile("p.toml", "[policy]\nname = \"p\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\n")}});
  PolicyRegistry policies;
  auto defaults = policies.environmentDefaults(env);  // the env plugin, before any communicator
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(defaults[0].first, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_TRUE(policies.active(env).first) << "the env plugin's read does not take the tuner's report away";
  EXPECT_FALSE(policies.active(env).first);
}

TEST(PolicyRegistry, CommunicatorsOfOneShapeShareOneLookup) {
  auto policy = std::make_shared<const tuner::Policy>();
  PolicyRegistry policies;
  PolicyRegistry::Lookup a = policies.lookup(policy, 16, 2);
  PolicyRegistry::Lookup b = policies.lookup(policy, 16, 2);
  PolicyRegistry::Lookup other = policies.lookup(policy, 8, 1);
  EXPECT_EQ(a.compiled.get(), b.compiled.get());
  EXPECT_NE(a.compiled.get(), other.compiled.get());
  EXPECT_TRUE(a.builtNow);
  EXPECT_FALSE(b.builtNow);
  EXPECT_TRUE(other.builtNow);
}

}  // namespace
}  // namespace nccl_roce::plugin

// The policies a process context keeps: each NCCL_ROCE_POLICY value read once and kept whatever happens to the
// file, one lookup per communicator shape shared by the communicators of that shape, problems reported by the
// first communicator only. Each context has its own: nothing is shared through statics.
#include "plugin/policy_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "common/env.h"
#include "common/sha256.h"
#include "policy/policy_digest.h"
#include "tests/support/temp_dir.h"
#include "tuner/experiment.h"

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
  EXPECT_EQ(tuner::assignPolicy(*policies.active(env).policy, 0).policy->name, "first");
}

TEST(PolicyRegistry, EachContextLoadsItsOwn) {
  TempDir dir;
  std::string path = dir.writeFile("p.toml", "[policy]\nname = \"first\"\n");
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", path}});
  PolicyRegistry one;
  EXPECT_EQ(tuner::assignPolicy(*one.active(env).policy, 0).policy->name, "first");
  dir.writeFile("p.toml", "[policy]\nname = \"second\"\n");
  PolicyRegistry other;  // another process
  EXPECT_EQ(tuner::assignPolicy(*other.active(env).policy, 0).policy->name, "second");
  EXPECT_EQ(tuner::assignPolicy(*one.active(env).policy, 0).policy->name, "first");
}

TEST(PolicyRegistry, OnlyTheFirstCommunicatorReportsAPolicysProblems) {
  TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{
      {"NCCL_ROCE_POLICY",
       dir.writeFile("p.toml", "[policy]\nname = \"p\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"2\"\n")}});
  PolicyRegistry policies;
  auto defaults = policies.environmentDefaults(env);  // the env plugin, before any communicator
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(defaults[0].first, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_TRUE(policies.active(env).first) << "the env plugin's read does not take the tuner's report away";
  EXPECT_FALSE(policies.active(env).first);
}

TEST(PolicyRegistry, CommunicatorsOfOneShapeShareOneLookup) {
  auto policy = std::make_shared<const policy::Policy>();
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

// A pinned policy, as a rollout meets it: the env plugin runs inside the resolution's 5 s bound and must not wait
// for a ConfigMap update; a communicator waits once, and later ones take a file that arrived late.
const char* kPinned = "[policy]\nname = \"new\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"4\"\n";
const char* kOld = "[policy]\nname = \"old\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION = \"1\"\n";

TEST(PolicyRegistry, EnvironmentDefaultsNeverWaitForAPinnedFileAndServeNothingFromAnotherOne) {
  TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", dir.writeFile("p.toml", kOld)},
                                                        {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                        {"NCCL_ROCE_POLICY_PIN_WAIT", "60"}});
  PolicyRegistry policies;
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(policies.environmentDefaults(env).empty()) << "the old file's QPS setting is not served";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  dir.writeFile("p.toml", kPinned);  // the update lands before the first communicator
  PolicyRegistry::Active active = policies.active(env);
  EXPECT_EQ(active.refusal, "") << "the env plugin's look did not decide for the tuner";
  EXPECT_EQ(tuner::assignPolicy(*active.policy, 0).policy->name, "new");
  ASSERT_EQ(policies.environmentDefaults(env).size(), 1u);
}

TEST(PolicyRegistry, APinnedFileThatArrivesAfterTheWaitIsTakenByTheNextCommunicator) {
  TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", dir.writeFile("p.toml", kOld)},
                                                        {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                        {"NCCL_ROCE_POLICY_PIN_WAIT", "0"}});
  PolicyRegistry policies;
  PolicyRegistry::Active refused = policies.active(env);
  EXPECT_NE(refused.refusal.find("pins " + policy::policyDigest(kPinned)), std::string::npos) << refused.refusal;
  EXPECT_NE(refused.refusal.find("is " + policy::policyDigest(kOld)), std::string::npos) << refused.refusal;
  EXPECT_FALSE(policies.active(env).refusal.empty()) << "still the old file";
  dir.writeFile("p.toml", kPinned);
  PolicyRegistry::Active taken = policies.active(env);
  EXPECT_EQ(taken.refusal, "");
  EXPECT_EQ(tuner::assignPolicy(*taken.policy, 0).policy->name, "new");
  EXPECT_FALSE(taken.first) << "earlier communicators already met this request";
}

// A communicator waiting for its pinned file holds nothing other calls need: the env plugin's defaults (NCCL's
// getEnv, and the net plugin's init, inside the resolution's 5 s bound) and a communicator that asks for another
// policy answer at once. A communicator asking for the same policy waits for the same file, not for a wait of
// its own, and both take it when it lands.
TEST(PolicyRegistry, APinnedWaitHoldsNoLockThatOtherCallsNeed) {
  TempDir dir;
  std::string path = dir.writeFile("p.toml", kOld);
  MapEnvironment pinned(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", path},
                                                           {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                           {"NCCL_ROCE_POLICY_PIN_WAIT", "20"}});
  MapEnvironment other(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY_INLINE", kOld}});
  PolicyRegistry policies;
  std::atomic<int> waiting{2};
  PolicyRegistry::Active first, second;
  std::thread firstInit([&] {
    first = policies.active(pinned);
    --waiting;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the first init is polling for the pinned file
  std::thread secondInit([&] {
    second = policies.active(pinned);
    --waiting;
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(policies.environmentDefaults(pinned).empty()) << "the old file's QPS setting is not served";
  PolicyRegistry::Active unrelated = policies.active(other);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "neither waited for the pin";
  EXPECT_EQ(unrelated.refusal, "");
  EXPECT_EQ(tuner::assignPolicy(*unrelated.policy, 0).policy->name, "old");
  EXPECT_EQ(waiting.load(), 2) << "both communicators of the pinned policy are still waiting";
  dir.writeFile("p.toml.tmp", kPinned);
  std::rename(dir.join("p.toml.tmp").c_str(), path.c_str());  // the ConfigMap update lands
  firstInit.join();
  secondInit.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "one wait, ended by the file";
  EXPECT_EQ(first.refusal, "");
  EXPECT_EQ(second.refusal, "");
  EXPECT_EQ(first.policy, second.policy) << "read once, shared";
  EXPECT_NE(first.first, second.first) << "one of them reports the policy's problems";
}

// An inline policy cannot change while the process runs: a mismatch is refused at once, without claiming a wait,
// with the fix for the pod template; a file's refusal says how long it waited and the fix for files.
TEST(PolicyRegistry, AnInlinePinMismatchIsRefusedAtOnceWithTheFixForThePodTemplate) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY_INLINE", kOld},
                                                        {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                        {"NCCL_ROCE_POLICY_PIN_WAIT", "60"}});
  PolicyRegistry policies;
  auto start = std::chrono::steady_clock::now();
  PolicyRegistry::Active refused = policies.active(env);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "not waited for";
  EXPECT_NE(refused.refusal.find("the inline policy (NCCL_ROCE_POLICY_INLINE) is " + policy::policyDigest(kOld)),
            std::string::npos)
      << refused.refusal;
  EXPECT_NE(refused.refusal.find("nccl-roce policy digest -"), std::string::npos) << refused.refusal;
  EXPECT_EQ(refused.refusal.find("waiting"), std::string::npos) << "no wait claimed: " << refused.refusal;
  EXPECT_EQ(refused.refusal.find("new file"), std::string::npos) << "no file to wait for: " << refused.refusal;
}

TEST(PolicyRegistry, AnInlinePolicyMatchesThePinOfItsFileWithoutTheFinalNewline) {
  std::string text = kPinned;
  text.pop_back();  // NCCL_ROCE_POLICY_INLINE="$(cat policy.toml)"
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY_INLINE", text},
                                                        {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)}});
  PolicyRegistry policies;
  EXPECT_EQ(policies.active(env).refusal, "");
}

TEST(PolicyRegistry, AFileRefusalSaysHowLongItWaitedAndTheFixForFiles) {
  TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", dir.writeFile("p.toml", kOld)},
                                                        {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                        {"NCCL_ROCE_POLICY_PIN_WAIT", "1"}});
  PolicyRegistry policies;
  PolicyRegistry::Active refused = policies.active(env);
  EXPECT_NE(refused.refusal.find("after waiting 1 s"), std::string::npos) << refused.refusal;
  EXPECT_NE(refused.refusal.find("once every pod has the new file"), std::string::npos) << refused.refusal;
}

// A pin wait that is not a whole number of seconds in range: one warning naming the variable, its value and the
// wait used, for the first communicator only; the wait used is the default.
TEST(PolicyRegistry, AnUnusablePinWaitIsNamedOnceWithTheValueUsed) {
  for (const char* bad : {"5s", "-1", "", "3601"}) {
    SCOPED_TRACE(bad);
    TempDir dir;
    MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", dir.writeFile("p.toml", kPinned)},
                                                          {"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                          {"NCCL_ROCE_POLICY_PIN_WAIT", bad}});
    PolicyRegistry policies;
    PolicyRegistry::Active first = policies.active(env);
    EXPECT_EQ(first.refusal, "");
    EXPECT_EQ(first.warning, "NCCL_ROCE_POLICY_PIN_WAIT='" + std::string(bad) +
                                 "' is not a whole number of seconds from 0 to 3600; waiting the default 90 s for the "
                                 "pinned policy file");
    EXPECT_EQ(policies.active(env).warning, "") << "once per process";
  }
  MapEnvironment fine(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY_DIGEST", policy::policyDigest(kPinned)},
                                                         {"NCCL_ROCE_POLICY_INLINE", kPinned},
                                                         {"NCCL_ROCE_POLICY_PIN_WAIT", "30"}});
  PolicyRegistry policies;
  EXPECT_EQ(policies.active(fine).warning, "");
}

}  // namespace
}  // namespace nccl_roce::plugin

// A policy pinned by digest, through the built .so as NCCL loads it: two ranks (two copies of the library)
// given different policy files under one pin; the one holding the other file fails its communicator's init
// with one WARN naming both digests, the other runs. The only init this library ever fails, on purpose.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/sha256.h"
#include "plugin/nccl/env_v2.h"
#include "plugin/nccl/tuner_v7.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

const char* kFitted =
    "[policy]\nname = \"fitted\"\n[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\nprotocol = \"ll\"\n";
const char* kStale =
    "[policy]\nname = \"stale\"\n[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\nprotocol = \"simple\"\n";

// The identity a pin names: the text's sha256 with the whitespace at its end dropped (docs/rollout.md).
std::string digestOf(std::string text) {
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return "sha256:" + sha256Hex(text);
}

int initRank(const PluginLibrary& lib, void** ctx) {
  return lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->init(ctx, 0x51a7, 16, 2, captureNcclLog, nullptr, nullptr);
}

TEST(PolicyPin, TheRankHoldingAnotherFileFailsItsInitAndTheOtherRuns) {
  TempDir dir;
  std::string fitted = dir.writeFile("new/policy.toml", kFitted);
  std::string stale = dir.writeFile("old/policy.toml", kStale);
  ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", digestOf(kFitted));
  ScopedEnv wait("NCCL_ROCE_POLICY_PIN_WAIT", "1");
  PluginLibrary rankA = PluginLibrary::copy(dir.path(), "rank0.so");
  PluginLibrary rankB = PluginLibrary::copy(dir.path(), "rank1.so");
  clearCapturedNcclLog();
  void* ctxA = nullptr;
  void* ctxB = nullptr;
  {
    ScopedEnv policy("NCCL_ROCE_POLICY", fitted);
    EXPECT_EQ(initRank(rankA, &ctxA), ncclSuccess);
  }
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 0u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, digestOf(kFitted)), 1u) << "the INFO line names the digest";
  {
    ScopedEnv policy("NCCL_ROCE_POLICY", stale);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(initRank(rankB, &ctxB), ncclInvalidUsage);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900)) << "waited for the file";
  }
  EXPECT_EQ(ctxB, nullptr);
  ASSERT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "pins " + digestOf(kFitted)), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "is " + digestOf(kStale)), 1u);
  EXPECT_EQ(rankA.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(ctxA), ncclSuccess);
}

TEST(PolicyPin, AFileThatArrivesWithinTheWaitIsUsed) {
  TempDir dir;
  std::string path = dir.writeFile("policy.toml", kStale);
  ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", digestOf(kFitted));
  ScopedEnv wait("NCCL_ROCE_POLICY_PIN_WAIT", "20");
  ScopedEnv policy("NCCL_ROCE_POLICY", path);
  PluginLibrary rank = PluginLibrary::copy(dir.path(), "rank.so");
  std::thread configMapUpdate([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    dir.writeFile("policy.toml.tmp", kFitted);
    std::rename(dir.join("policy.toml.tmp").c_str(), path.c_str());  // as the kubelet swaps a ConfigMap
  });
  void* ctx = nullptr;
  EXPECT_EQ(initRank(rank, &ctx), ncclSuccess);
  configMapUpdate.join();
  EXPECT_NE(ctx, nullptr);
  rank.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(ctx);
}

TEST(PolicyPin, AnInlinePolicyIsPinnedByTheDigestOfItsText) {
  TempDir dir;
  ScopedEnv inlined("NCCL_ROCE_POLICY_INLINE", kFitted);
  ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", digestOf(kFitted));
  PluginLibrary rank = PluginLibrary::copy(dir.path(), "rank.so");
  clearCapturedNcclLog();
  void* ctx = nullptr;
  EXPECT_EQ(initRank(rank, &ctx), ncclSuccess);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "uses policy 'fitted' (NCCL_ROCE_POLICY_INLINE"), 1u);
  rank.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(ctx);
}

// Nothing waits behind a communicator that waits for its pinned file: NCCL's environment reads (the env plugin's
// init, whose resolution serves the policy's defaults, and getEnv) and the init of a communicator the application
// gives another policy all answer at once, and the waiting one still fails at the end of its wait.
TEST(PolicyPin, GetEnvAndAnotherPolicysCommunicatorAnswerWhileOneWaits) {
  TempDir dir;
  ScopedEnv sysfs("NCCL_ROCE_SYSFS_ROOT", dir.path());  // no RDMA device: the resolution ends at once
  PluginLibrary rank = PluginLibrary::copy(dir.path(), "rank.so");
  std::atomic<bool> waited{false};
  int pinnedResult = -1;
  void* pinnedCtx = nullptr;
  std::thread pinnedInit;
  {
    ScopedEnv policy("NCCL_ROCE_POLICY", dir.writeFile("policy.toml", kStale));
    ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", digestOf(kFitted));
    ScopedEnv wait("NCCL_ROCE_POLICY_PIN_WAIT", "3");
    pinnedInit = std::thread([&] {
      pinnedResult = initRank(rank, &pinnedCtx);
      waited = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // it has read its request and polls the file
  }
  ScopedEnv policy("NCCL_ROCE_POLICY", "nccl");
  auto start = std::chrono::steady_clock::now();
  const auto* env = rank.table<ncclEnv_v2_t>("ncclEnvPlugin_v2");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->init(2, 28, 9, "", captureNcclLog), ncclSuccess);
  EXPECT_EQ(env->getEnv("NCCL_IB_QPS_PER_CONNECTION"), nullptr);
  void* otherCtx = nullptr;
  EXPECT_EQ(initRank(rank, &otherCtx), ncclSuccess);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "nothing waited for the pin";
  EXPECT_FALSE(waited) << "the pinned communicator is still waiting";
  pinnedInit.join();
  EXPECT_EQ(pinnedResult, ncclInvalidUsage);
  EXPECT_EQ(pinnedCtx, nullptr);
  rank.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(otherCtx);
  env->finalize();
}

// A pin that is not a digest is the operator's typo, not a rollout in flight: one WARN and NCCL's own choices.
TEST(PolicyPin, APinThatIsNotADigestWarnsAndLeavesNcclToDecide) {
  TempDir dir;
  ScopedEnv policy("NCCL_ROCE_POLICY", dir.writeFile("p.toml", kFitted));
  ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", "sha256:1234");
  PluginLibrary rank = PluginLibrary::copy(dir.path(), "rank.so");
  clearCapturedNcclLog();
  void* ctx = nullptr;
  EXPECT_EQ(initRank(rank, &ctx), ncclSuccess);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "'sha256:1234' is not a digest"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "uses policy 'nccl'"), 1u);
  rank.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(ctx);
}

}  // namespace
}  // namespace nccl_roce::testing

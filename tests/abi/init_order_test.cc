// A policy file that cannot be used is said exactly once per process, naming the file, whatever order NCCL
// initialises its plugins in: NCCL 2.27-2.31 initialise a communicator's profiler before its tuner
// (initTransportsRank, src/init.cc), older lines have no profiler, and the A/B pod (profiler and statistics on) is
// the one that went silent when the profiler asked for the policy first. The profiler never reads the policy and
// never waits for a pinned one. Each case runs in its own copy of the built library (its own process state), with
// the tables of the NCCL release it stands for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "plugin/nccl/profiler_v4.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v6.h"
#include "plugin/nccl/tuner_v7.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

enum class Order { kTunerOnly, kProfilerThenTuner, kTunerThenProfiler };

// One NCCL release's tables: how it initialises and finalizes one communicator's tuner and profiler.
struct Release {
  const char* name;
  std::function<void(const PluginLibrary&, uint64_t commId, void** tuner)> initTuner;
  std::function<void(const PluginLibrary&, void* tuner)> finalizeTuner;
  std::function<void(const PluginLibrary&, uint64_t commId, void** profiler)> initProfiler;  // empty: none
  std::function<void(const PluginLibrary&, void* profiler)> finalizeProfiler;
};

Release nccl2_30() {
  return {"2.30 (tuner v6, profiler v6)",
          [](const PluginLibrary& lib, uint64_t id, void** ctx) {
            lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6")->init(ctx, id, 16, 2, captureNcclLog, nullptr, nullptr);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6")->finalize(ctx); },
          [](const PluginLibrary& lib, uint64_t id, void** ctx) {
            int mask = 0;
            lib.table<ncclProfiler_v6_t>("ncclProfiler_v6")->init(ctx, id, &mask, "comm", 2, 16, 0, captureNcclLog);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclProfiler_v6_t>("ncclProfiler_v6")->finalize(ctx); }};
}

Release nccl2_32() {
  return {"2.32.6 (tuner v7, profiler v7)",
          [](const PluginLibrary& lib, uint64_t id, void** ctx) {
            lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->init(ctx, id, 16, 2, captureNcclLog, nullptr, nullptr);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")->finalize(ctx); },
          [](const PluginLibrary& lib, uint64_t id, void** ctx) {
            int mask = 0;
            lib.table<ncclProfiler_v7_t>("ncclProfiler_v7")->init(ctx, id, &mask, "comm", 2, 16, 0, captureNcclLog);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclProfiler_v7_t>("ncclProfiler_v7")->finalize(ctx); }};
}

// 2.27: the tuner gets no communicator id, the profiler its hash.
Release nccl2_27() {
  return {"2.27 (tuner v4, profiler v4)",
          [](const PluginLibrary& lib, uint64_t, void** ctx) {
            lib.table<ncclTuner_v4_t>("ncclTunerPlugin_v4")->init(16, 2, captureNcclLog, ctx);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclTuner_v4_t>("ncclTunerPlugin_v4")->destroy(ctx); },
          [](const PluginLibrary& lib, uint64_t id, void** ctx) {
            int mask = 0;
            lib.table<ncclProfiler_v4_t>("ncclProfiler_v4")->init(ctx, &mask, "comm", id, 2, 16, 0, captureNcclLog);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclProfiler_v4_t>("ncclProfiler_v4")->finalize(ctx); }};
}

// 2.19-2.22: a tuner and no profiler.
Release nccl2_19() {
  return {"2.19 (tuner v2)",
          [](const PluginLibrary& lib, uint64_t, void** ctx) {
            lib.table<ncclTuner_v2_t>("ncclTunerPlugin_v2")->init(16, 2, captureNcclLog, ctx);
          },
          [](const PluginLibrary& lib, void* ctx) { lib.table<ncclTuner_v2_t>("ncclTunerPlugin_v2")->destroy(ctx); },
          nullptr, nullptr};
}

// `communicators` communicators initialised at once, each on its own thread as NCCL initialises them, in
// `order`, then finalized (the tuner first, as NCCL does).
void runCommunicators(const PluginLibrary& lib, const Release& release, Order order, int communicators) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < communicators; ++i) {
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (ready.load() < communicators) std::this_thread::yield();
      uint64_t id = 0x5eed0000u + static_cast<uint64_t>(i);
      void *tuner = nullptr, *profiler = nullptr;
      bool profiled = release.initProfiler && order != Order::kTunerOnly;
      if (profiled && order == Order::kProfilerThenTuner) release.initProfiler(lib, id, &profiler);
      release.initTuner(lib, id, &tuner);
      if (profiled && order == Order::kTunerThenProfiler) release.initProfiler(lib, id, &profiler);
      release.finalizeTuner(lib, tuner);
      if (profiled) release.finalizeProfiler(lib, profiler);
    });
  }
  for (std::thread& t : threads) t.join();
}

const char* kBroken = "[policy]\nname = \"decode\"\n[[rule]]\ncollective = \"allreduce\"\nsize = \"64K..16K\"\n";

TEST(InitOrder, ABrokenPolicyIsSaidOncePerProcessNamingTheFileInEveryOrder) {
  TempDir dir;
  std::string policy = dir.writeFile("policies/decode.toml", kBroken);
  ScopedEnv requested("NCCL_ROCE_POLICY", policy);
  int copies = 0;
  for (const Release& release : {nccl2_32(), nccl2_30(), nccl2_27(), nccl2_19()}) {
    for (Order order : {Order::kTunerOnly, Order::kProfilerThenTuner, Order::kTunerThenProfiler}) {
      if (!release.initProfiler && order != Order::kTunerOnly) continue;
      for (bool statistics : {false, true}) {
        for (int communicators : {1, 4}) {
          std::string what = std::string(release.name) + ", order " + std::to_string(static_cast<int>(order)) +
                             (statistics ? ", statistics on, " : ", statistics off, ") + std::to_string(communicators) +
                             " communicator(s)";
          std::unique_ptr<ScopedEnv> stats;
          if (statistics)
            stats = std::make_unique<ScopedEnv>("NCCL_ROCE_STATS", dir.join("stats" + std::to_string(copies)));
          PluginLibrary lib = PluginLibrary::copy(dir.path(), "process" + std::to_string(copies++) + ".so");
          ASSERT_TRUE(lib.loaded()) << lib.error();
          clearCapturedNcclLog();
          runCommunicators(lib, release, order, communicators);
          EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 1u) << what;
          EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "policy '" + policy + "' unusable"), 1u) << what;
        }
      }
    }
  }
}

// NCCL 2.27 gives its tuner no communicator id: the tuner's and the profiler's parts of one communicator meet in one
// statistics entry only by the thread NCCL initialises them on. Eight communicators initialised at once, each
// rank r making r + 1 tuner calls: every entry holds one rank's profiler part and the calls of that rank's tuner.
// The interleaving is one NCCL can produce (each thread initialises its profiler, then its tuner) and the worst for
// pairing by order: every profiler first, then the tuners in the reverse order.
TEST(InitOrder, EightConcurrentInitsOfNccl2_27PairEachProfilerWithItsOwnTuner) {
  TempDir dir;
  ScopedEnv requested("NCCL_ROCE_POLICY", "nccl");
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  ScopedEnv interval("NCCL_ROCE_STATS_INTERVAL", "0");
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "nccl2_27.so");
  const auto* tuner = lib.table<ncclTuner_v4_t>("ncclTunerPlugin_v4");
  const auto* profiler = lib.table<ncclProfiler_v4_t>("ncclProfiler_v4");
  constexpr int kInits = 8;
  std::atomic<int> ready{0}, profiled{0}, tunersDone{0};
  std::vector<void*> tuners(kInits), profilers(kInits);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kInits; ++rank) {
    threads.emplace_back([&, rank] {
      ready.fetch_add(1);
      while (ready.load() < kInits) std::this_thread::yield();
      int mask = 0;
      size_t r = static_cast<size_t>(rank);
      profiler->init(&profilers[r], &mask, "comm", 0x51a7, 1, kInits, rank, captureNcclLog);
      profiled.fetch_add(1);
      while (profiled.load() < kInits || tunersDone.load() != kInits - 1 - rank) std::this_thread::yield();
      tuner->init(kInits, 1, captureNcclLog, &tuners[r]);
      tunersDone.fetch_add(1);
      float table[7][3];
      for (auto& row : table)
        for (float& cost : row) cost = 1.0f;
      for (int call = 0; call <= rank; ++call) {
        int channels = 0;
        tuner->getCollInfo(tuners[r], ncclFuncAllReduce, 65536, 1, reinterpret_cast<float**>(table), 7, 3, 0,
                           &channels);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < kInits; ++rank) tuner->destroy(tuners[static_cast<size_t>(rank)]);
  for (int rank = 0; rank < kInits; ++rank) profiler->finalize(profilers[static_cast<size_t>(rank)]);
  std::ifstream in(dir.join("stats") + "." + std::to_string(::getpid()) + ".json");
  nlohmann::json file = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(file.is_object());
  ASSERT_EQ(file["communicators"].size(), static_cast<size_t>(kInits)) << "one entry per communicator";
  for (const nlohmann::json& entry : file["communicators"]) {
    ASSERT_TRUE(entry.contains("rank") && entry.contains("calls")) << entry.dump();
    EXPECT_EQ(entry["calls"].get<int>(), entry["rank"].get<int>() + 1) << "rank " << entry["rank"];
  }
}

// The profiler's init reads no policy, so a pin on a policy this process does not hold (a ConfigMap update in
// flight) never holds it up: only the tuner waits for the pinned file.
TEST(InitOrder, TheProfilerNeverWaitsForAPinnedPolicy) {
  TempDir dir;
  std::string policy = dir.writeFile("decode.toml", "[policy]\nname = \"decode\"\n");
  ScopedEnv requested("NCCL_ROCE_POLICY", policy);
  ScopedEnv pin("NCCL_ROCE_POLICY_DIGEST", "sha256:" + std::string(64, '0'));
  ScopedEnv wait("NCCL_ROCE_POLICY_PIN_WAIT", "30");
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "pinned.so");
  clearCapturedNcclLog();
  void* profiler = nullptr;
  auto start = std::chrono::steady_clock::now();
  nccl2_30().initProfiler(lib, 0x77, &profiler);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(profiler, nullptr) << "timed, the pin notwithstanding";
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 0u);
  nccl2_30().finalizeProfiler(lib, profiler);
}

}  // namespace
}  // namespace nccl_roce::testing

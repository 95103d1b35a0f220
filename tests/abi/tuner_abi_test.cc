// The tuner tables of the built .so, driven as NCCL drives them: the symbol NCCL looks for first, contiguous
// cost tables passed as float** (7 algorithms, or 6 before NCCL 2.23), concurrent inits, finalize; and the
// property that keeps jobs from hanging: two independent copies (two ranks) always decide the same.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v3.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v5.h"
#include "plugin/nccl/tuner_v6.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

constexpr float kGuard = 12345.0f;

// NCCL's table with guard cells after it: a write past numAlgo x 3 would show.
struct GuardedTable {
  explicit GuardedTable(int algorithms) : numAlgo(algorithms), cells(static_cast<size_t>(algorithms) * 3 + 6, kGuard) {
    for (int i = 0; i < algorithms * 3; ++i) cells[static_cast<size_t>(i)] = 10.0f + static_cast<float>(i);
  }
  float** ptr() { return reinterpret_cast<float**>(cells.data()); }
  float& at(int a, int p) { return cells[static_cast<size_t>(a * 3 + p)]; }
  bool guardIntact() const {
    for (size_t i = static_cast<size_t>(numAlgo) * 3; i < cells.size(); ++i) {
      if (cells[i] != kGuard) return false;
    }
    return true;
  }
  int numAlgo;
  std::vector<float> cells;
};

// What NCCL relies on whatever the policy: entries it made unavailable (any negative value, NaN) keep their exact
// bits, at most one entry changes and only to 0.0, and nChannels stays within NCCL's 0..MAXCHANNELS.
::testing::AssertionResult keptNcclsTableSafe(const std::vector<float>& before, const std::vector<float>& after,
                                              int numCells, int nChannels) {
  int changed = 0;
  for (int i = 0; i < numCells; ++i) {
    float b = before[static_cast<size_t>(i)], a = after[static_cast<size_t>(i)];
    if (std::memcmp(&a, &b, sizeof(float)) == 0) continue;
    if (!(b >= 0.0f)) return ::testing::AssertionFailure() << "unavailable entry " << i << " (" << b << ") was written";
    if (a != 0.0f) return ::testing::AssertionFailure() << "entry " << i << " became " << a << ", not 0.0";
    ++changed;
  }
  if (changed > 1) return ::testing::AssertionFailure() << changed << " entries marked, NCCL takes only one";
  if (nChannels < 0 || nChannels > 64) return ::testing::AssertionFailure() << "nChannels " << nChannels;
  return ::testing::AssertionSuccess();
}

class ScopedPolicy {
 public:
  explicit ScopedPolicy(const std::string& value) { ::setenv("NCCL_ROCE_POLICY", value.c_str(), 1); }
  ~ScopedPolicy() { ::unsetenv("NCCL_ROCE_POLICY"); }
};

TEST(TunerAbi, ExportsEveryVersionNcclLooksFor) {
  PluginLibrary lib;
  ASSERT_TRUE(lib.loaded()) << lib.error();
  for (const char* symbol : {"ncclTunerPlugin_v6", "ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3",
                             "ncclTunerPlugin_v2"}) {
    EXPECT_NE(lib.table<void>(symbol), nullptr) << symbol;
  }
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  EXPECT_STREQ(v6->name, "nccl-roce");
  EXPECT_EQ(v6->getChunkSize, nullptr) << "NCCL keeps its own chunk size";
}

TEST(TunerAbi, V6DrivesTheDefaultPolicyThroughAContiguousTable) {
  ScopedPolicy policy("inference");
  PluginLibrary lib;
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  ncclTunerConstants_v6_t constants;
  std::memset(&constants, 0, sizeof(constants));
  constants.baseLatencies[1][2] = 8.4;
  ncclNvlDomainInfo_v6_t nvl{2, 8, 8};
  void* ctx = nullptr;
  clearCapturedNcclLog();
  ASSERT_EQ(v6->init(&ctx, 0x1234, 16, 2, captureNcclLog, &nvl, &constants), ncclSuccess);
  EXPECT_EQ(constants.baseLatencies[1][2], 8.4) << "NCCL's constants are never edited";
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "policy 'inference'"), 1u);
  GuardedTable t(7);
  int nChannels = 0;
  ASSERT_EQ(v6->getCollInfo(ctx, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(t.at(0, 0), 0.0f) << "LL on the cheapest algorithm offering it";
  EXPECT_EQ(nChannels, 0);
  EXPECT_TRUE(t.guardIntact());
  EXPECT_EQ(v6->finalize(ctx), ncclSuccess);
}

TEST(TunerAbi, OlderNcclSixAlgorithmTablesAreNeverOverrun) {
  TempDir dir;
  std::string path = dir.writeFile("pat.toml", "[policy]\nname = \"p\"\n[[rule]]\nalgorithm = [\"pat\", \"tree\"]\nprotocol = \"simple\"\n");
  ScopedPolicy policy(path);
  PluginLibrary lib;
  const auto* v3 = lib.table<ncclTuner_v3_t>("ncclTunerPlugin_v3");
  const auto* v4 = lib.table<ncclTuner_v4_t>("ncclTunerPlugin_v4");
  void* ctx = nullptr;
  ASSERT_EQ(v3->init(16, 2, nullptr, &ctx), ncclSuccess);
  GuardedTable t6(6);
  int nChannels = 0;
  ASSERT_EQ(v3->getCollInfo(ctx, ncclFuncAllReduce, 4096, 1, t6.ptr(), 6, 3, &nChannels), ncclSuccess);
  EXPECT_TRUE(t6.guardIntact()) << "no PAT row before NCCL 2.23";
  EXPECT_EQ(t6.at(0, 2), 0.0f) << "falls through to Tree/Simple";
  v3->destroy(ctx);
  ASSERT_EQ(v4->init(16, 2, nullptr, &ctx), ncclSuccess);
  GuardedTable t7(7);
  ASSERT_EQ(v4->getCollInfo(ctx, ncclFuncAllReduce, 4096, 1, t7.ptr(), 7, 3, 1, &nChannels), ncclSuccess);
  EXPECT_EQ(t7.at(6, 2), 0.0f) << "PAT/Simple when NCCL offers it";
  EXPECT_TRUE(t7.guardIntact());
  v4->destroy(ctx);
}

TEST(TunerAbi, V5TakesTheCommIdAndLeavesConstantsAlone) {
  TempDir dir;
  std::string path = dir.writeFile("ab.toml",
                                   "[experiment]\nname = \"v5\"\n"
                                   "[[experiment.arm]]\nname = \"only\"\npolicy = \"inference\"\nweight = 100\n");
  ScopedPolicy policy(path);
  PluginLibrary lib;
  const auto* v5 = lib.table<ncclTuner_v5_t>("ncclTunerPlugin_v5");
  ncclTunerConstants_v5_t constants;
  std::memset(&constants, 0x5a, sizeof(constants));
  ncclTunerConstants_v5_t before = constants;
  ncclNvlDomainInfo_v5_t nvl{2, 8, 8};
  void* ctx = nullptr;
  clearCapturedNcclLog();
  ASSERT_EQ(v5->init(&ctx, 0xfeed, 16, 2, captureNcclLog, &nvl, &constants), ncclSuccess);
  EXPECT_EQ(std::memcmp(&constants, &before, sizeof(constants)), 0) << "NCCL's constants are never edited";
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "comm 0x000000000000feed (16 ranks, 2 nodes)"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, ") arm only"), 1u);
  GuardedTable t(7);
  int nChannels = 0;
  ASSERT_EQ(v5->getCollInfo(ctx, ncclFuncAllReduce, 2048, 1, t.ptr(), 7, 3, 1, &nChannels), ncclSuccess);
  EXPECT_EQ(t.at(0, 0), 0.0f);
  EXPECT_TRUE(t.guardIntact());
  EXPECT_EQ(v5->finalize(ctx), ncclSuccess);
}

TEST(TunerAbi, V2ReturnsAnAlgorithmAndProtocolDirectly) {
  ScopedPolicy policy("inference");
  PluginLibrary lib;
  const auto* v2 = lib.table<ncclTuner_v2_t>("ncclTunerPlugin_v2");
  void* ctx = nullptr;
  ASSERT_EQ(v2->init(16, 2, nullptr, &ctx), ncclSuccess);
  int algorithm = NCCL_ALGO_UNDEF, protocol = NCCL_PROTO_UNDEF, nChannels = 0;
  ASSERT_EQ(v2->getCollInfo(ctx, ncclFuncAllReduce, 4096, 0, 0, 1, &algorithm, &protocol, &nChannels), ncclSuccess);
  EXPECT_EQ(algorithm, NCCL_ALGO_UNDEF) << "the default policy names no algorithm: unknowable without a table";
  EXPECT_EQ(protocol, NCCL_PROTO_UNDEF) << "NCCL wants both or neither";
  v2->destroy(ctx);
}

TEST(TunerAbi, ThirtyTwoConcurrentInitsAndCollectives) {
  ScopedPolicy policy("inference");
  PluginLibrary lib;
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  std::vector<std::thread> threads;
  std::array<int, 32> results{};
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&, i] {
      void* ctx = nullptr;
      int ok = v6->init(&ctx, static_cast<uint64_t>(i) * 7919, 16, 2, captureNcclLog, nullptr, nullptr) == ncclSuccess;
      for (int call = 0; call < 200; ++call) {
        GuardedTable t(7);
        int nChannels = 0;
        ok &= v6->getCollInfo(ctx, ncclFuncAllReduce, 1u << (call % 24), 1, t.ptr(), 7, 3, 0, &nChannels) ==
              ncclSuccess;
        ok &= t.guardIntact();
      }
      ok &= v6->finalize(ctx) == ncclSuccess;
      results[static_cast<size_t>(i)] = ok;
    });
  }
  for (auto& t : threads) t.join();
  for (int ok : results) EXPECT_EQ(ok, 1);
}

// Two ranks are two processes with their own copy of the plugin; they must agree on every decision, and every
// decision must leave NCCL a table it can use, whatever it marked unavailable.
TEST(TunerAbi, AnyTwoRanksDecideTheSameAndSafelyOverRandomInputs) {
  TempDir dir;
  dir.writeFile("candidate.toml",
                "[policy]\nname = \"cand\"\n"
                "[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\nprotocol = [\"ll\", \"ll128\"]\n"
                "[[rule]]\ncollective = \"allreduce\"\nsize = \"64K..8M\"\nnodes = \"2..\"\nalgorithm = [\"nvlstree\", \"tree\", \"ring\"]\nprotocol = \"ll128\"\nchannels = 16\n"
                "[[rule]]\nsize = \"8M..\"\npipe_ops = \"2..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n");
  std::string experiment = dir.writeFile("ab.toml",
                                         "[experiment]\nname = \"prop\"\n"
                                         "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 40\n"
                                         "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"candidate.toml\"\nweight = 60\n");
  ScopedPolicy policy(experiment);
  PluginLibrary rankA = PluginLibrary::copy(dir.path(), "rank0.so");
  PluginLibrary rankB = PluginLibrary::copy(dir.path(), "rank1.so");
  ASSERT_TRUE(rankA.loaded() && rankB.loaded()) << rankA.error() << rankB.error();
  const auto* a = rankA.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  const auto* b = rankB.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  ASSERT_NE(a, b) << "two instances, not one";
  std::mt19937_64 random(20261122);
  int overridden = 0;
  for (int comm = 0; comm < 64; ++comm) {
    uint64_t commId = random();
    size_t nNodes = 1 + random() % 8;
    size_t nRanks = nNodes * (1 + random() % 8);
    void* ctxA = nullptr;
    void* ctxB = nullptr;
    a->init(&ctxA, commId, nRanks, nNodes, nullptr, nullptr, nullptr);
    b->init(&ctxB, commId, nRanks, nNodes, nullptr, nullptr, nullptr);
    for (int call = 0; call < 200; ++call) {
      auto coll = static_cast<ncclFunc_t>(random() % 5);
      size_t bytes = random() >> (random() % 64);
      int pipeOps = 1 + static_cast<int>(random() % 4);
      int regBuff = static_cast<int>(random() % 2);
      // NCCL's own forms of "unavailable": -1, the FP8 Ring x1024 scaling of it, and NaN (never chosen by NCCL).
      const float kUnavailable[] = {-1.0f, -1024.0f, std::numeric_limits<float>::quiet_NaN()};
      GuardedTable ta(7);
      for (float& cell : ta.cells) {
        if (&cell - ta.cells.data() >= 21) continue;
        cell = random() % 4 == 0 ? kUnavailable[random() % 3] : 0.1f + static_cast<float>(random() % 1000) / 10;
      }
      GuardedTable tb = ta;
      const std::vector<float> before = ta.cells;
      int chA = 0, chB = 0;
      a->getCollInfo(ctxA, coll, bytes, pipeOps, ta.ptr(), 7, 3, regBuff, &chA);
      b->getCollInfo(ctxB, coll, bytes, pipeOps, tb.ptr(), 7, 3, regBuff, &chB);
      ASSERT_EQ(0, std::memcmp(ta.cells.data(), tb.cells.data(), ta.cells.size() * sizeof(float)))
          << "comm " << commId << " coll " << coll << " bytes " << bytes;
      ASSERT_EQ(chA, chB);
      ASSERT_TRUE(keptNcclsTableSafe(before, ta.cells, 21, chA)) << "coll " << coll << " bytes " << bytes;
      ASSERT_TRUE(ta.guardIntact());
      for (int i = 0; i < 21; ++i) overridden += ta.cells[static_cast<size_t>(i)] == 0.0f;
    }
    a->finalize(ctxA);
    b->finalize(ctxB);
  }
  EXPECT_GT(overridden, 100) << "the property is exercised with real overrides, not only passthrough";
}

}  // namespace
}  // namespace nccl_roce::testing

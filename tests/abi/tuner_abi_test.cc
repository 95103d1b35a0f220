// The tuner tables of the built .so, driven as NCCL drives them: the symbol NCCL looks for first, contiguous
// cost tables passed as float** (7 algorithms, or 6 before NCCL 2.23), concurrent inits, getChunkSize after
// getCollInfo (v6, v7), finalize; and the property that keeps jobs from
// hanging: two independent copies (two ranks) always decide the same, chunk sizes included.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v3.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v5.h"
#include "plugin/nccl/tuner_v6.h"
#include "plugin/nccl/tuner_v7.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/nccl_selection.h"
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
// bits, no entry becomes negative, at most one becomes 0.0 (the choice) and any other change raises an entry as
// cheap as it (0.0 or -0.0) to the avoid cost, and nChannels stays within NCCL's 0..MAXCHANNELS.
::testing::AssertionResult keptNcclsTableSafe(const std::vector<float>& before, const std::vector<float>& after,
                                              int numCells, int nChannels) {
  int changed = 0;
  for (int i = 0; i < numCells; ++i) {
    float b = before[static_cast<size_t>(i)], a = after[static_cast<size_t>(i)];
    if (std::memcmp(&a, &b, sizeof(float)) == 0) continue;
    if (!(b >= 0.0f)) return ::testing::AssertionFailure() << "unavailable entry " << i << " (" << b << ") was written";
    if (a == 1.0e9f && b == 0.0f) continue;  // a tie with the choice, avoided
    if (a != 0.0f) return ::testing::AssertionFailure() << "entry " << i << " became " << a << ", not 0.0";
    ++changed;
  }
  if (changed > 1) return ::testing::AssertionFailure() << changed << " entries marked, NCCL takes only one";
  if (nChannels < 0 || nChannels > 64) return ::testing::AssertionFailure() << "nChannels " << nChannels;
  return ::testing::AssertionSuccess();
}

// What NCCL can use (src/enqueue.cc calcCollChunking, NCCL 2.30.2 - 2.30.7 and the 2.31 dev line, default buffers):
// whole grains of the protocol (LL 16, LL128 1920, Simple 512 bytes), at most one buffer step (LL 32K, LL128 576000,
// Simple 512K, or 2M for Ring all-reduce, all-gather, reduce-scatter; NVLS 128K). Or NCCL's own value, untouched.
bool usableOrNcclsOwn(size_t chunk, size_t own, int coll, int algo, int proto) {
  if (chunk == own) return true;
  const size_t grain[] = {16, 1920, 512};
  size_t ceiling = proto == NCCL_PROTO_LL ? 32768 : proto == NCCL_PROTO_LL128 ? 576000 : 524288;
  if (proto == NCCL_PROTO_SIMPLE && algo == NCCL_ALGO_RING && coll >= ncclFuncAllGather) ceiling = 2 << 20;
  if (algo == NCCL_ALGO_NVLS || algo == NCCL_ALGO_NVLS_TREE) ceiling = std::min<size_t>(ceiling, 131072);
  return proto >= 0 && proto < 3 && chunk >= grain[proto] && chunk % grain[proto] == 0 && chunk <= ceiling;
}

class ScopedPolicy {
 public:
  explicit ScopedPolicy(const std::string& value) { ::setenv("NCCL_ROCE_POLICY", value.c_str(), 1); }
  ~ScopedPolicy() { ::unsetenv("NCCL_ROCE_POLICY"); }
};

TEST(TunerAbi, ExportsEveryVersionNcclLooksFor) {
  PluginLibrary lib;
  ASSERT_TRUE(lib.loaded()) << lib.error();
  for (const char* symbol : {"ncclTunerPlugin_v7", "ncclTunerPlugin_v6", "ncclTunerPlugin_v5", "ncclTunerPlugin_v4",
                             "ncclTunerPlugin_v3", "ncclTunerPlugin_v2"}) {
    EXPECT_NE(lib.table<void>(symbol), nullptr) << symbol;
  }
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  EXPECT_STREQ(v6->name, "nccl-roce");
  EXPECT_NE(v6->getChunkSize, nullptr) << "NCCL 2.30.2+ asks for chunk sizes";
  const auto* v7 = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
  ASSERT_NE(v7, nullptr);
  EXPECT_STREQ(v7->name, "nccl-roce");
  EXPECT_EQ(v7->getCollInfo, v6->getCollInfo) << "one implementation";
  EXPECT_EQ(v7->getChunkSize, v6->getChunkSize) << "one implementation";
  EXPECT_EQ(v7->finalize, v6->finalize) << "one implementation";
  EXPECT_EQ(lib.table<void>("ncclTunerPlugin_v8"), nullptr) << "no NCCL release declares tuner v8";
}

// NCCL 2.32.6 passes v7 its five-row constants, which it keeps after init (2.31 reset them): ours are left exactly as
// NCCL passed them, the Rubin row included.
TEST(TunerAbi, V7LeavesNcclsFiveRowConstantsAsTheyWere) {
  ScopedPolicy policy("inference");
  PluginLibrary lib;
  const auto* v7 = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
  ncclTunerConstants_v7_t constants;
  std::memset(&constants, 0x5a, sizeof(constants));
  constants.llMaxBws[4][0] = 2.0;
  constants.perChMaxNVLSTreeBws[4][2] = -1.0;
  ncclTunerConstants_v7_t before = constants;
  ncclNvlDomainInfo_v7_t nvl{2, 8, 8};
  void* ctx = nullptr;
  ASSERT_EQ(v7->init(&ctx, 0x77, 16, 2, captureNcclLog, &nvl, &constants), ncclSuccess);
  EXPECT_EQ(std::memcmp(&constants, &before, sizeof(constants)), 0);
  GuardedTable t(7);
  int nChannels = 0;
  ASSERT_EQ(v7->getCollInfo(ctx, ncclFuncAllReduce, 4096, 1, t.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(t.at(0, 0), 0.0f) << "the default policy, as through v6";
  EXPECT_TRUE(t.guardIntact());
  EXPECT_EQ(v7->finalize(ctx), ncclSuccess);
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

// NCCL's pick from a marked table (topoGetAlgoInfo): the strict minimum over entries >= 0, algorithm-major.
void ncclPick(const GuardedTable& t, int* algo, int* proto) {
  float best = std::numeric_limits<float>::max();
  *algo = *proto = -1;
  for (int i = 0; i < t.numAlgo * 3; ++i) {
    float cost = t.cells[static_cast<size_t>(i)];
    if (cost >= 0.0f && cost < best) {
      best = cost;
      *algo = i / 3;
      *proto = i % 3;
    }
  }
}

// One collective as NCCL 2.30.2+ handles it: getCollInfo, its pick, then getChunkSize for each channel piece with
// the chunk size NCCL computed (calcCollChunking). Returns what NCCL would use for the last piece.
template <typename Tuner>
size_t chunkAfterCollInfo(const Tuner* tuner, void* ctx, ncclFunc_t coll, size_t bytes, GuardedTable& t,
                          size_t ncclChunkSize, int* algo, int* proto) {
  int nChannels = 0;
  EXPECT_EQ(tuner->getCollInfo(ctx, coll, bytes, 1, t.ptr(), t.numAlgo, 3, 0, &nChannels), ncclSuccess);
  ncclPick(t, algo, proto);
  size_t chunk = ncclChunkSize;
  for (int piece = 0; piece < 3; ++piece) {
    chunk = ncclChunkSize;
    EXPECT_EQ(tuner->getChunkSize(ctx, coll, bytes / 16, *algo, *proto, 1, &chunk), ncclSuccess);
  }
  return chunk;
}

constexpr const char* kChunkPolicy =
    "[policy]\nname = \"chunks\"\n"
    "[[rule]]\ncollective = \"allreduce\"\nsize = \"1M..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n"
    "chunk_size = \"256K\"\n"
    "[[rule]]\ncollective = \"allreduce\"\nsize = \"..1M\"\nalgorithm = \"tree\"\nprotocol = \"ll128\"\n"
    "chunk_size = \"x0.5\"\n";

template <typename Tuner, typename Constants>
void servesTheRulesChunkSizes(const Tuner* tuner) {
  Constants constants;
  std::memset(&constants, 0, sizeof(constants));
  void* ctx = nullptr;
  ASSERT_EQ(tuner->init(&ctx, 0x5eed, 16, 2, captureNcclLog, nullptr, &constants), ncclSuccess);
  int algo = -1, proto = -1;
  GuardedTable big(7);
  EXPECT_EQ(chunkAfterCollInfo(tuner, ctx, ncclFuncAllReduce, 8 << 20, big, 2 << 20, &algo, &proto), 256u << 10);
  EXPECT_EQ(algo, NCCL_ALGO_RING);
  EXPECT_EQ(proto, NCCL_PROTO_SIMPLE);
  GuardedTable small(7);
  EXPECT_EQ(chunkAfterCollInfo(tuner, ctx, ncclFuncAllReduce, 64 << 10, small, 36000, &algo, &proto), 17280u)
      << "NCCL's Tree/LL128 36000 halved, in whole 1920-byte grains";
  // Ring/Simple made unavailable: the rule falls back to NCCL's own choice, and to NCCL's own chunk size.
  GuardedTable fallback(7);
  fallback.at(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE) = -1.0f;
  EXPECT_EQ(chunkAfterCollInfo(tuner, ctx, ncclFuncAllReduce, 8 << 20, fallback, 524288, &algo, &proto), 524288u);
  EXPECT_EQ(algo, NCCL_ALGO_TREE) << "NCCL's cheapest";
  EXPECT_TRUE(big.guardIntact() && small.guardIntact() && fallback.guardIntact());
  EXPECT_EQ(tuner->finalize(ctx), ncclSuccess);
}

TEST(TunerAbi, V6AndV7ServeTheRulesChunkSizeAfterGetCollInfoAndNcclsOwnAfterAFallback) {
  TempDir dir;
  ScopedPolicy policy(dir.writeFile("chunks.toml", kChunkPolicy));
  PluginLibrary lib;
  servesTheRulesChunkSizes<ncclTuner_v6_t, ncclTunerConstants_v6_t>(lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6"));
  servesTheRulesChunkSizes<ncclTuner_v7_t, ncclTunerConstants_v7_t>(lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7"));
}

TEST(TunerAbi, V5SaysOnceThatChunkSizesAreIgnored) {
  TempDir dir;
  ScopedPolicy policy(dir.writeFile("chunks.toml", kChunkPolicy));
  PluginLibrary lib;
  const auto* v5 = lib.table<ncclTuner_v5_t>("ncclTunerPlugin_v5");
  clearCapturedNcclLog();
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(v5->init(&a, 1, 16, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  ASSERT_EQ(v5->init(&b, 2, 16, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "this NCCL has no getChunkSize"), 1u);
  v5->finalize(a);
  v5->finalize(b);
}

TEST(TunerAbi, OlderNcclSixAlgorithmTablesAreNeverOverrun) {
  TempDir dir;
  std::string path = dir.writeFile(
      "pat.toml", "[policy]\nname = \"p\"\n[[rule]]\nalgorithm = [\"pat\", \"tree\"]\nprotocol = \"simple\"\n");
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
        ok &=
            v6->getCollInfo(ctx, ncclFuncAllReduce, 1u << (call % 24), 1, t.ptr(), 7, 3, 0, &nChannels) == ncclSuccess;
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
                "[[rule]]\ncollective = \"allreduce\"\nsize = \"64K..8M\"\nnodes = \"2..\"\nalgorithm = [\"nvlstree\", "
                "\"tree\", \"ring\"]\nprotocol = \"ll128\"\nchannels = 16\n"
                "[[rule]]\nsize = \"8M..\"\npipe_ops = \"2..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n");
  dir.writeFile("chunks.toml",
                "[policy]\nname = \"chunks\"\n"
                "[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\nprotocol = [\"ll\", \"ll128\"]\n"
                "chunk_size = { ll = \"8K\", ll128 = \"x2\" }\n"
                "[[rule]]\nsize = \"64K..\"\nchunk_size = { simple = \"1M\", ll128 = \"x0.25\" }\n");
  std::string experiment =
      dir.writeFile("ab.toml",
                    "[experiment]\nname = \"prop\"\n"
                    "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 30\n"
                    "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"candidate.toml\"\nweight = 40\n"
                    "[[experiment.arm]]\nname = \"chunks\"\npolicy = \"chunks.toml\"\nweight = 30\n");
  ScopedPolicy policy(experiment);
  PluginLibrary rankA = PluginLibrary::copy(dir.path(), "rank0.so");
  PluginLibrary rankB = PluginLibrary::copy(dir.path(), "rank1.so");
  ASSERT_TRUE(rankA.loaded() && rankB.loaded()) << rankA.error() << rankB.error();
  const auto* a = rankA.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  const auto* b = rankB.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  ASSERT_NE(a, b) << "two instances, not one";
  std::mt19937_64 random(20261122);
  int overridden = 0, changedChunks = 0;
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
      int algo = -1, proto = -1;
      ncclPick(ta, &algo, &proto);
      if (algo < 0) continue;  // NCCL fails such a call before it asks for a chunk size
      // What NCCL computed (not always whole grains: Tree/LL128 halves 576000 to 36000), for one piece.
      const size_t own = (size_t{1} << (8 + random() % 14)) + (random() % 2 ? 0 : random() % 4096);
      size_t chunkA = own, chunkB = own;
      ASSERT_EQ(a->getChunkSize(ctxA, coll, bytes / 8, algo, proto, 1, &chunkA), ncclSuccess);
      ASSERT_EQ(b->getChunkSize(ctxB, coll, bytes / 8, algo, proto, 1, &chunkB), ncclSuccess);
      ASSERT_EQ(chunkA, chunkB) << "comm " << commId << " coll " << coll << " bytes " << bytes;
      ASSERT_TRUE(usableOrNcclsOwn(chunkA, own, coll, algo, proto)) << chunkA << " for " << algo << "/" << proto;
      changedChunks += chunkA != own;
    }
    a->finalize(ctxA);
    b->finalize(ctxB);
  }
  EXPECT_GT(overridden, 100) << "the property is exercised with real overrides, not only passthrough";
  EXPECT_GT(changedChunks, 100) << "and with chunk sizes served, not only NCCL's own";
}

// Without any chunk_size, getChunkSize is the identity on every call NCCL can make, whatever the policy decides.
TEST(TunerAbi, WithoutChunkSizeRulesGetChunkSizeReturnsExactlyWhatNcclPassed) {
  ScopedPolicy policy("inference");
  PluginLibrary lib;
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  std::mt19937_64 random(7);
  for (int comm = 0; comm < 16; ++comm) {
    void* ctx = nullptr;
    size_t nNodes = 1 + random() % 4;
    ASSERT_EQ(v6->init(&ctx, random(), nNodes * 8, nNodes, nullptr, nullptr, nullptr), ncclSuccess);
    for (int call = 0; call < 500; ++call) {
      auto coll = static_cast<ncclFunc_t>(random() % 5);
      GuardedTable t(7);
      int algo = -1, proto = -1;
      const size_t own = random() >> (random() % 64);
      size_t bytes = random() >> (random() % 64);
      EXPECT_EQ(chunkAfterCollInfo(v6, ctx, coll, bytes, t, own, &algo, &proto), own);
      size_t odd = own;  // and for combinations no decision names
      ASSERT_EQ(v6->getChunkSize(ctx, coll, bytes, static_cast<int>(random() % 9) - 1,
                                 static_cast<int>(random() % 5) - 1, static_cast<int>(random() % 65), &odd),
                ncclSuccess);
      EXPECT_EQ(odd, own);
    }
    v6->finalize(ctx);
  }
}

// Each NCCL line drives the table it loads and picks by its own rule (tests/support/nccl_selection.h): 2.32.6 v7
// (2.31's rule), 2.30.2 - 2.32.3 v6 (both rules), 2.28 - 2.30.1 v5, 2.24 - 2.27 v4 and 2.22 - 2.23 v3 (6 algorithms)
// the old one. Over tables with ties, zeros, -0.0 and negative entries everywhere, what both rules run after a call
// is the entry the tuner chose, or, where it left NCCL's choice, the table is as NCCL passed it (each line runs its
// own pick).
template <typename Tuner>
void eachLineRunsTheTunersChoice(const Tuner* tuner, const char* version, int numAlgo) {
  SCOPED_TRACE(version);
  void* ctx = nullptr;
  if constexpr (std::is_same_v<Tuner, ncclTuner_v3_t> || std::is_same_v<Tuner, ncclTuner_v4_t>) {
    ASSERT_EQ(tuner->init(16, 2, nullptr, &ctx), ncclSuccess);
  } else {
    ASSERT_EQ(tuner->init(&ctx, 0x51ec7, 16, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  }
  std::mt19937_64 random(2031);
  const int cells = numAlgo * 3;
  int chosen = 0, ncclsOwn = 0;
  for (int call = 0; call < 2000; ++call) {
    std::vector<float> passed(static_cast<size_t>(cells));
    for (float& e : passed) {
      uint64_t r = random() % 10;
      e = r < 3 ? -1.0f : r < 4 ? 0.0f : r == 4 ? -0.0f : static_cast<float>(1 + random() % 3);  // ties everywhere
    }
    std::vector<float> returned = passed;
    int nChannels = 0;
    auto coll = static_cast<ncclFunc_t>(random() % 5);
    const size_t bytes = size_t{1} << (random() % 26);
    if constexpr (std::is_same_v<Tuner, ncclTuner_v3_t>) {
      ASSERT_EQ(
          tuner->getCollInfo(ctx, coll, bytes, 1, reinterpret_cast<float**>(returned.data()), numAlgo, 3, &nChannels),
          ncclSuccess);
    } else {
      ASSERT_EQ(tuner->getCollInfo(ctx, coll, bytes, 1, reinterpret_cast<float**>(returned.data()), numAlgo, 3,
                                   static_cast<int>(random() % 2), &nChannels),
                ncclSuccess);
    }
    ASSERT_TRUE(keptNcclsTableSafe(passed, returned, cells, nChannels));
    if (std::memcmp(returned.data(), passed.data(), passed.size() * sizeof(float)) == 0) {
      ++ncclsOwn;  // NCCL's own choice, by each line's own rule, from its own table
      continue;
    }
    ++chosen;
    // A choice means the same to every line: the one entry marked 0.0, which NCCL offered.
    const int runs = ncclRuns(NcclLine::k230, passed, returned);
    ASSERT_GE(runs, 0) << "call " << call;
    ASSERT_EQ(returned[static_cast<size_t>(runs)], 0.0f) << "call " << call;
    ASSERT_GE(passed[static_cast<size_t>(runs)], 0.0f) << "call " << call;
    ASSERT_EQ(ncclRuns(NcclLine::k231, passed, returned), runs) << "call " << call;
  }
  EXPECT_GT(chosen, 300) << "the policy chose entries";
  EXPECT_GT(ncclsOwn, 100) << "and left NCCL's own choice (no rule for broadcast and reduce, nothing available)";
  if constexpr (std::is_same_v<Tuner, ncclTuner_v3_t> || std::is_same_v<Tuner, ncclTuner_v4_t>) {
    tuner->destroy(ctx);
  } else {
    EXPECT_EQ(tuner->finalize(ctx), ncclSuccess);
  }
}

TEST(TunerAbi, EachNcclLineRunsTheTunersChoiceOverTiesZerosAndNegativeEntries) {
  TempDir dir;
  // Named entries, wildcards both ways, lists, channels; all sizes of every collective.
  ScopedPolicy policy(dir.writeFile("p.toml",
                                    "[policy]\nname = \"p\"\n"
                                    "[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\n"
                                    "algorithm = [\"tree\", \"ring\"]\nprotocol = [\"ll128\", \"ll\"]\n"
                                    "[[rule]]\ncollective = \"allreduce\"\nsize = \"64K..\"\n"
                                    "protocol = \"simple\"\nchannels = 8\n"
                                    "[[rule]]\ncollective = \"allgather\"\nalgorithm = \"pat\"\n"
                                    "[[rule]]\ncollective = \"reducescatter\"\nalgorithm = \"ring\"\n"
                                    "protocol = \"ll\"\n"));
  clearCapturedNcclLog();
  PluginLibrary lib;
  eachLineRunsTheTunersChoice(lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7"), "v7", 7);
  eachLineRunsTheTunersChoice(lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6"), "v6", 7);
  eachLineRunsTheTunersChoice(lib.table<ncclTuner_v5_t>("ncclTunerPlugin_v5"), "v5", 7);
  eachLineRunsTheTunersChoice(lib.table<ncclTuner_v4_t>("ncclTunerPlugin_v4"), "v4", 7);
  eachLineRunsTheTunersChoice(lib.table<ncclTuner_v3_t>("ncclTunerPlugin_v3"), "v3", 6);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 0u) << "the policy loaded";
}

// A tie and a negative entry planted where NCCL's own minimum is: 2.30 runs the first of the tie, 2.31 the last,
// the negative entry (unavailable: NCCL computed nothing there) neither. The rule's choice is run by both.
TEST(TunerAbi, APlantedTieAndNegativeEntryChangeNothingInWhatEitherLineRuns) {
  TempDir dir;
  ScopedPolicy policy(dir.writeFile("p.toml",
                                    "[policy]\nname = \"p\"\n[[rule]]\ncollective = \"allreduce\"\n"
                                    "algorithm = \"ring\"\nprotocol = \"simple\"\n"));
  PluginLibrary lib;
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  void* ctx = nullptr;
  ASSERT_EQ(v6->init(&ctx, 1, 16, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  std::vector<float> passed(21, -1.0f);
  passed[0 * 3 + 0] = 0.0f;   // Tree/LL: free, as cheap as the choice will be
  passed[4 * 3 + 2] = -0.0f;  // NVLS/Simple: -0.0, equal to it
  passed[1 * 3 + 2] = 7.0f;   // Ring/Simple: the rule's
  passed[6 * 3 + 2] = -5.0f;  // PAT/Simple: negative, not offered
  std::vector<float> returned = passed;
  int nChannels = 0;
  ASSERT_EQ(v6->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, reinterpret_cast<float**>(returned.data()), 7, 3, 0,
                            &nChannels),
            ncclSuccess);
  EXPECT_EQ(ncclRuns(NcclLine::k230, passed, returned), 1 * 3 + 2);
  EXPECT_EQ(ncclRuns(NcclLine::k231, passed, returned), 1 * 3 + 2);
  EXPECT_EQ(returned[6 * 3 + 2], -5.0f) << "the unavailable entry keeps its value";
  // The same table for a collective no rule decides: each line runs its own pick, untouched.
  returned = passed;
  ASSERT_EQ(v6->getCollInfo(ctx, ncclFuncAllGather, 1 << 20, 1, reinterpret_cast<float**>(returned.data()), 7, 3, 0,
                            &nChannels),
            ncclSuccess);
  EXPECT_EQ(std::memcmp(returned.data(), passed.data(), 21 * sizeof(float)), 0);
  EXPECT_EQ(ncclRuns(NcclLine::k230, passed, returned), 0 * 3 + 0) << "the first of the tie";
  EXPECT_EQ(ncclRuns(NcclLine::k231, passed, returned), 4 * 3 + 2) << "the last of the tie";
  EXPECT_EQ(v6->finalize(ctx), ncclSuccess);
}

// NCCL 2.30.2 - 2.32.3 all load v6: the tuner asks the libnccl whose logger init gets which release it is, and so
// knows what NCCL runs where a rule keeps NCCL's choice but sets a chunk size per protocol (served by getChunkSize
// for the algorithm and protocol NCCL runs). A planted tie between Tree/LL and Ring/Simple: 2.30 runs Tree/LL,
// 2.31 Ring/Simple, and each gets the rule's chunk size for what it runs.
TEST(TunerAbi, V6KnowsWhichNcclCallsItFromTheLoggerItIsGiven) {
  TempDir dir;
  ScopedPolicy policy(dir.writeFile("p.toml",
                                    "[policy]\nname = \"p\"\n[[rule]]\ncollective = \"allreduce\"\n"
                                    "chunk_size = { ll = \"8K\", simple = \"256K\" }\n"));
  PluginLibrary lib;
  void* nccl = ::dlopen(NCCL_ROCE_FAKE_NCCL, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(nccl, nullptr) << ::dlerror();
  auto setVersion = reinterpret_cast<void (*)(int)>(::dlsym(nccl, "fakeNcclSetVersion"));
  auto ncclLogger = reinterpret_cast<ncclDebugLogger_t>(::dlsym(nccl, "fakeNcclLog"));
  ASSERT_TRUE(setVersion != nullptr && ncclLogger != nullptr);
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  struct Case {
    int version;
    int algo, proto;
    size_t chunk;
  };
  for (const Case& c :
       {Case{23007, NCCL_ALGO_TREE, NCCL_PROTO_LL, 8192}, Case{23102, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 262144},
        Case{23203, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 262144}}) {
    SCOPED_TRACE(c.version);
    setVersion(c.version);
    void* ctx = nullptr;
    ASSERT_EQ(v6->init(&ctx, 2, 16, 2, ncclLogger, nullptr, nullptr), ncclSuccess);
    std::vector<float> table(21, -1.0f);
    table[0 * 3 + 0] = 12.0f;  // Tree/LL
    table[1 * 3 + 2] = 12.0f;  // Ring/Simple: tied
    table[1 * 3 + 0] = 30.0f;
    int nChannels = 0;
    ASSERT_EQ(v6->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, reinterpret_cast<float**>(table.data()), 7, 3, 0,
                              &nChannels),
              ncclSuccess);
    size_t chunk = 131072;
    ASSERT_EQ(v6->getChunkSize(ctx, ncclFuncAllReduce, 65536, c.algo, c.proto, 1, &chunk), ncclSuccess);
    EXPECT_EQ(chunk, c.chunk) << "the rule's chunk size for what this NCCL runs";
    EXPECT_EQ(v6->finalize(ctx), ncclSuccess);
  }
  ::dlclose(nccl);
}

}  // namespace
}  // namespace nccl_roce::testing

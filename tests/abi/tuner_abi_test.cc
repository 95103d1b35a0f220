// The tuner tables of the built .so, driven as NCCL drives them: the symbol NCCL looks for first, contiguous
// cost tables passed as float** (7 algorithms, or 6 before NCCL 2.23), concurrent inits, getChunkSize after
// getCollInfo (v6; and the unreleased v7 where the build exports it), finalize; and the property that keeps jobs from
// hanging: two independent copies (two ranks) always decide the same, chunk sizes included.
#include <gtest/gtest.h>

#include <algorithm>
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
#ifdef NCCL_ROCE_UNRELEASED_ABI
#include "plugin/nccl/tuner_v7.h"
#endif

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
  for (const char* symbol :
       {"ncclTunerPlugin_v6", "ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3", "ncclTunerPlugin_v2"}) {
    EXPECT_NE(lib.table<void>(symbol), nullptr) << symbol;
  }
  const auto* v6 = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  EXPECT_STREQ(v6->name, "nccl-roce");
  EXPECT_NE(v6->getChunkSize, nullptr) << "NCCL 2.30.2+ asks for chunk sizes";
#ifdef NCCL_ROCE_UNRELEASED_ABI
  const auto* v7 = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
  ASSERT_NE(v7, nullptr);
  EXPECT_STREQ(v7->name, "nccl-roce");
  EXPECT_EQ(v7->getChunkSize, v6->getChunkSize) << "one implementation";
#else
  EXPECT_EQ(lib.table<void>("ncclTunerPlugin_v7"), nullptr) << "no NCCL release declares tuner v7";
#endif
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

TEST(TunerAbi, V6ServesTheRulesChunkSizeAfterGetCollInfoAndNcclsOwnAfterAFallback) {
  TempDir dir;
  ScopedPolicy policy(dir.writeFile("chunks.toml", kChunkPolicy));
  PluginLibrary lib;
  servesTheRulesChunkSizes<ncclTuner_v6_t, ncclTunerConstants_v6_t>(lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6"));
#ifdef NCCL_ROCE_UNRELEASED_ABI
  servesTheRulesChunkSizes<ncclTuner_v7_t, ncclTunerConstants_v7_t>(lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7"));
#endif
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
  dir.writeFile("chunks.toml",
                "[policy]\nname = \"chunks\"\n"
                "[[rule]]\ncollective = \"allreduce\"\nsize = \"..64K\"\nprotocol = [\"ll\", \"ll128\"]\n"
                "chunk_size = { ll = \"8K\", ll128 = \"x2\" }\n"
                "[[rule]]\nsize = \"64K..\"\nchunk_size = { simple = \"1M\", ll128 = \"x0.25\" }\n");
  std::string experiment = dir.writeFile("ab.toml",
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

}  // namespace
}  // namespace nccl_roce::testing

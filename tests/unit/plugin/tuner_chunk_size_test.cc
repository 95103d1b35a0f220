// getChunkSize as NCCL 2.30.2+ calls it (calcCollChunking, src/enqueue.cc): after getCollInfo has decided every
// collective of a group, once per channel piece (nChannels 1, the piece's bytes), with the chunk size NCCL
// computed. What it returns is the deciding rule's chunk size for the algorithm and protocol NCCL runs, or NCCL's
// own value; never anything NCCL cannot use, and never an error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "plugin/process_context.h"
#include "plugin/tuner_plugin.h"
#include "tests/support/nccl_cost_table.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using Table = testing::NcclCostTable;
using Vars = std::map<std::string, std::string>;

constexpr int kTree = 0, kRing = 1;
constexpr int kLL = 0, kSimple = 2;

// NCCL's default table (tests/support/nccl_cost_table.h) with Simple made the cheapest, as for a large call.
Table largeCallTable() {
  Table t;
  t.cells[kRing][kSimple] = 10;
  return t;
}

// A process whose NCCL_ROCE_POLICY is a file of `rules`, and one communicator of 16 ranks on 2 nodes in it.
class Communicator {
 public:
  explicit Communicator(const std::string& rules, Vars more = {}, bool ncclAsksChunkSize = true)
      : env_(varsWith(dir_.writeFile("p.toml", "[policy]\nname = \"chunks\"\n" + rules), std::move(more))),
        process_(env_) {
    testing::clearCapturedNcclLog();
    tunerInit(process_, &context_, 0x77, 16, 2, testing::captureNcclLog, ncclAsksChunkSize);
  }
  ~Communicator() { finalize(); }

  // getCollInfo for one collective, as ncclPrepareTasks calls it (pipeOps 0: as NCCL 2.31's symmetric path does).
  void decide(ncclFunc_t coll, size_t bytes, Table table = {}, int pipeOps = 1) {
    int nChannels = 0;
    EXPECT_EQ(tunerGetCollInfo(context_, coll, bytes, pipeOps, table.ptr(), 7, 3, 0, &nChannels), ncclSuccess);
  }
  // getChunkSize for one channel piece, as calcCollChunking calls it; returns what NCCL then uses.
  size_t chunk(ncclFunc_t coll, size_t pieceBytes, int algo, int proto, size_t ncclOwn) {
    size_t chunkSize = ncclOwn;
    EXPECT_EQ(tunerGetChunkSize(context_, coll, pieceBytes, algo, proto, 1, &chunkSize), ncclSuccess);
    return chunkSize;
  }
  void finalize() {
    if (context_ != nullptr) tunerFinalize(context_);
    context_ = nullptr;
  }
  void* context() const { return context_; }

 private:
  static Vars varsWith(const std::string& policy, Vars more) {
    more.emplace("NCCL_ROCE_POLICY", policy);
    return more;
  }
  TempDir dir_;
  MapEnvironment env_;
  ProcessContext process_;
  void* context_ = nullptr;
};

nlohmann::json statisticsIn(const std::string& prefix) {
  std::ifstream in(prefix + "." + std::to_string(::getpid()) + ".json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

TEST(TunerChunkSize, TheRuleThatChoseServesItsChunkSizeToEveryPieceOfTheCollective) {
  Communicator c(
      "[[rule]]\ncollective = \"allreduce\"\nsize = \"1M..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n"
      "chunk_size = \"256K\"\n");
  c.decide(ncclFuncAllReduce, 8 << 20);
  // 8M over 16 channels: NCCL asks about a lo, a mid and a hi piece, 512K each, with 2M its own chunk size.
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 512 << 10, kRing, kSimple, 2 << 20), 256u << 10);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 512 << 10, kRing, kSimple, 2 << 20), 256u << 10);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 384 << 10, kRing, kSimple, 2 << 20), 256u << 10);
}

TEST(TunerChunkSize, NcclsOwnWhereNoRuleDecidedOrTheRulesChoiceWasUnavailable) {
  Communicator c(
      "[[rule]]\ncollective = \"allreduce\"\nsize = \"1M..\"\nalgorithm = \"tree\"\nprotocol = \"ll128\"\n"
      "chunk_size = { ll128 = \"240K\" }\n");
  c.decide(ncclFuncAllReduce, 4096);  // no rule matches: NCCL picks Ring/LL
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4096, kRing, kLL, 16384), 16384u);
  Table noLL128;
  noLL128.cells[kTree][1] = -1;
  c.decide(ncclFuncAllReduce, 4 << 20, noLL128);  // Tree/LL128 unavailable: NCCL's own choice, Ring/LL
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 256 << 10, kRing, kLL, 32768), 32768u) << "the rule did not decide";
  c.decide(ncclFuncAllReduce, 4 << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 256 << 10, kTree, 1, 576000), 245760u);
}

// NCCL 2.31's symmetric path asks with pipeOps 0 to see whether its own choice is LL; then it runs a symmetric
// kernel (no getChunkSize) or asks again as an ordinary collective. Its answer keeps no chunk size: a piece of the
// ordinary collectives of the same launch gets theirs, not an ambiguity.
TEST(TunerChunkSize, NcclsSymmetricKernelQueryKeepsNoChunkSize) {
  Communicator c(
      "[[rule]]\ncollective = \"allreduce\"\npipe_ops = 0\nalgorithm = \"ring\"\nprotocol = \"ll\"\n"
      "chunk_size = \"8K\"\n"
      "[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = \"ll\"\nchunk_size = \"16K\"\n");
  c.decide(ncclFuncAllReduce, 65536, {}, /*pipeOps=*/0);  // the symmetric path's check: Ring/LL, 8K
  c.decide(ncclFuncAllReduce, 4096);                      // an ordinary all-reduce of the launch: Ring/LL, 16K
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4096, kRing, kLL, 32768), 16384u);
}

TEST(TunerChunkSize, ARuleKeepingNcclsChoiceSetsTheChunkSizeOfTheProtocolNcclPicks) {
  Communicator c("[[rule]]\nchunk_size = { simple = \"1M\" }\n");
  c.decide(ncclFuncAllReduce, 4096);  // NCCL's pick: Ring/LL, for which the rule says nothing
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4096, kRing, kLL, 16384), 16384u);
  c.decide(ncclFuncAllReduce, 64 << 20, largeCallTable());  // NCCL's pick: Ring/Simple
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4 << 20, kRing, kSimple, 2 << 20), 1u << 20);
}

TEST(TunerChunkSize, AFactorFollowsNcclsOwnChunkSizeCallByCall) {
  Communicator c("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"x0.5\"\n");
  c.decide(ncclFuncAllReduce, 64 << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4 << 20, kRing, kSimple, 2 << 20), 1u << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 64 << 10, kRing, kSimple, 131072), 65536u);
}

// Two all-reduces of one group, decided apart (more than 4x apart in size, so NCCL asks about each), both on
// Ring/Simple with different chunk sizes: a piece cannot say which it belongs to.
TEST(TunerChunkSize, AGroupThatDecidedOneAlgorithmAndProtocolTwoWaysGetsNcclsOwnAndIsCounted) {
  Communicator c(
      "[[rule]]\nsize = \"..1M\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"128K\"\n"
      "[[rule]]\nsize = \"1M..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"512K\"\n");
  c.decide(ncclFuncAllReduce, 256 << 10);
  c.decide(ncclFuncAllReduce, 16 << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 128 << 10, kRing, kSimple, 524288), 524288u);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 1 << 20, kRing, kSimple, 2 << 20), 2u << 20);
  // The next group holds one of them: its chunk size again.
  c.decide(ncclFuncAllReduce, 16 << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 1 << 20, kRing, kSimple, 2 << 20), 512u << 10);
  // Same decision twice in a group (an all-reduce and an all-gather would be two keys anyway): fine.
  c.decide(ncclFuncAllReduce, 16 << 20);
  c.decide(ncclFuncAllReduce, 32 << 20);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 1 << 20, kRing, kSimple, 2 << 20), 512u << 10);
}

TEST(TunerChunkSize, AValueNcclCannotUseHereLeavesItsOwnIsCountedAndSaidOnce) {
  // The user's NCCL_BUFFSIZE (1M) makes Ring/Simple's ceiling 512K: the rule's 1M is refused at run time.
  TempDir stats;
  Communicator c("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n",
                 {{"NCCL_BUFFSIZE", "1048576"}, {"NCCL_ROCE_STATS", stats.join("s")}});
  for (int i = 0; i < 3; ++i) {
    c.decide(ncclFuncAllReduce, 64 << 20);
    EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4 << 20, kRing, kSimple, 524288), 524288u);
  }
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO,
                                          "chunk size 1M for AllReduce Ring/Simple is not one NCCL "
                                          "can use there (at most 524288 bytes, whole grains of 512); "
                                          "NCCL's own 524288 kept"),
            1u);
  c.finalize();
  nlohmann::json comm = statisticsIn(stats.join("s"))["communicators"][0];
  EXPECT_EQ(comm["chunk_sizes"], nlohmann::json::parse(R"({"served":0,"refused":3,"ambiguous":0})"));
  EXPECT_EQ(comm["decisions"][0]["chunk_size"], 1048576) << "what the rule decided, for ab and ab fit";
}

TEST(TunerChunkSize, NcclChunkSizeForcesOneOnEveryCallWhereNcclCanUseIt) {
  Communicator c("", {{"NCCL_ROCE_CHUNK_SIZE", "256K"}});
  c.decide(ncclFuncAllReduce, 64 << 20, largeCallTable());
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4 << 20, kRing, kSimple, 2 << 20), 256u << 10);
  EXPECT_EQ(c.chunk(ncclFuncAllReduce, 4096, kRing, kLL, 16384), 16384u) << "past LL's 32K";
  EXPECT_EQ(c.chunk(ncclFuncAllGather, 4 << 20, kRing, 1, 576000), 576000u) << "not whole LL128 grains";
  Communicator bad("", {{"NCCL_ROCE_CHUNK_SIZE", "huge"}});
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, "NCCL_ROCE_CHUNK_SIZE=huge ignored"), 1u);
  EXPECT_EQ(bad.chunk(ncclFuncAllReduce, 4 << 20, kRing, kSimple, 2 << 20), 2u << 20);
}

TEST(TunerChunkSize, WhereNcclHasNoGetChunkSizeOneInfoLineSaysTheyAreIgnored) {
  Communicator c("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n", {},
                 /*ncclAsksChunkSize=*/false);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_INFO,
                                          "sets chunk sizes, but this NCCL has no getChunkSize (it "
                                          "needs NCCL 2.30.2 or later): NCCL keeps its own chunk sizes"),
            1u);
  EXPECT_EQ(testing::countCapturedNcclLog(NCCL_LOG_WARN, ""), 0u);
}

TEST(TunerChunkSize, WithoutChunkSizesGetChunkSizeAlwaysReturnsNcclsOwn) {
  Communicator c(
      "[[rule]]\nsize = \"..64K\"\nprotocol = \"ll\"\n[[rule]]\nsize = \"64K..\"\nalgorithm = \"ring\"\n"
      "protocol = \"simple\"\nchannels = 8\n");
  for (size_t bytes = 1; bytes < (size_t{1} << 32); bytes *= 3) {
    c.decide(ncclFuncAllReduce, bytes, bytes > (1 << 20) ? largeCallTable() : Table{});
    for (int proto = 0; proto < 3; ++proto) {
      for (size_t own : {size_t{1}, size_t{16384}, size_t{36000}, size_t{2} << 20, size_t{12345678}}) {
        EXPECT_EQ(c.chunk(ncclFuncAllReduce, bytes / 4 + 1, kRing, proto, own), own);
      }
    }
  }
}

TEST(TunerChunkSize, NullAndOddArgumentsAreHarmless) {
  size_t chunk = 4096;
  EXPECT_EQ(tunerGetChunkSize(nullptr, ncclFuncAllReduce, 1, 1, 2, 1, &chunk), ncclSuccess);
  EXPECT_EQ(chunk, 4096u);
  Communicator c("[[rule]]\nchunk_size = \"x2\"\n");
  EXPECT_EQ(tunerGetChunkSize(c.context(), ncclFuncAllReduce, 1, 1, 2, 1, nullptr), ncclSuccess);
  EXPECT_EQ(c.chunk(static_cast<ncclFunc_t>(9), 1, 99, 7, 4096), 4096u);
}

}  // namespace
}  // namespace nccl_roce::plugin

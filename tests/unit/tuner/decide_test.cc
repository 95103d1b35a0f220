// What NCCL is told for one call: first match, preferences falling through to what is available, never an
// unavailable entry, nChannels 0 unless a rule sets it, 6- and 7-algorithm tables.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/nccl_csv.h"
#include "tuner/policy_toml.h"

namespace nccl_roce::tuner {
namespace {

constexpr float kOff = -1.0f;  // NCCL_ALGO_PROTO_IGNORE

std::shared_ptr<const Policy> policy(const std::string& rules) {
  auto doc = parsePolicyToml("[policy]\nname = \"t\"\n" + rules, "t.toml");
  EXPECT_TRUE(doc.ok()) << joinErrors(doc.errors);
  return std::make_shared<const Policy>(*doc.policy);
}

// NCCL's table for a 2-node all-reduce: rows Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT;
// columns LL, LL128, Simple; predicted microseconds, -1 where NCCL offers nothing.
struct Table {
  std::vector<float> cells{
      20.1f, 25.0f, 30.2f,  // Tree
      18.3f, 21.0f, 26.5f,  // Ring
      kOff,  kOff,  kOff,   // CollNetDirect
      kOff,  kOff,  kOff,   // CollNetChain
      kOff,  kOff,  40.0f,  // NVLS
      kOff,  kOff,  35.0f,  // NVLSTree
      kOff,  kOff,  kOff,   // PAT
  };
  int numAlgo = 7;
  CostTable view() { return CostTable{cells.data(), numAlgo, 3}; }
  float at(int a, int p) const { return cells[static_cast<size_t>(a * 3 + p)]; }
};

Decision run(const std::shared_ptr<const Policy>& p, Table& t, CallInputs call, int* nChannels = nullptr,
             uint64_t nRanks = 16, uint64_t nNodes = 2) {
  CompiledPolicy compiled(p, nRanks, nNodes);
  CostTable view = t.view();
  Decision d = decide(compiled, call, view);
  int ignored = 0;
  applyDecision(d, view, nChannels ? nChannels : &ignored);
  return d;
}

CallInputs allReduce(uint64_t bytes) { return CallInputs{4, bytes, 1, 0}; }

TEST(Decide, FirstMatchingRuleInFileOrderWins) {
  auto p = policy(R"(
[[rule]]
collective = "allreduce"
size = "..=64K"
algorithm = "tree"
protocol = "ll"
[[rule]]
collective = "allreduce"
size = "64K..1M"
nodes = "2.."
algorithm = "ring"
protocol = "simple"
)");
  Table t;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.outcome, Decision::Outcome::kChosen);
  EXPECT_EQ(d.rule, 0);
  EXPECT_EQ(t.at(0, 0), 0.0f) << "Tree/LL marked as the cheapest";
  EXPECT_EQ(t.at(1, 0), 18.3f) << "nothing else touched";
  Table t2;
  Decision d2 = run(p, t2, allReduce(65536));
  EXPECT_EQ(d2.rule, 0) << "65536 is inside both ranges (..=64K includes it): the first rule wins";
  Table t3;
  EXPECT_EQ(run(p, t3, allReduce(65537)).rule, 1);
  Table t4;
  EXPECT_EQ(run(p, t4, allReduce(65537), nullptr, 8, 1).outcome, Decision::Outcome::kNoRule) << "1 node";
  Table t5;
  EXPECT_EQ(run(p, t5, CallInputs{2, 4096, 1, 0}).outcome, Decision::Outcome::kNoRule) << "allgather";
}

TEST(Decide, UnavailablePreferencesFallThroughThenLeaveNcclsChoice) {
  auto p = policy(R"(
[[rule]]
algorithm = ["collnetdirect", "nvls", "ring"]
protocol = ["ll128", "simple"]
)");
  Table t;
  Decision d = run(p, t, allReduce(1 << 20));
  EXPECT_EQ(d.algorithm, 4) << "CollNetDirect unavailable; NVLS has no LL128 but has Simple";
  EXPECT_EQ(d.protocol, 2);
  Table none;
  for (float& c : none.cells) c = kOff;
  none.cells[1 * 3 + 0] = 5.0f;  // only Ring/LL left
  Table before = none;
  Decision d2 = run(p, none, allReduce(1 << 20));
  EXPECT_EQ(d2.outcome, Decision::Outcome::kUnavailable);
  EXPECT_EQ(none.cells, before.cells) << "NCCL's table untouched: its own choice stands";
}

TEST(Decide, NeverMarksAnyNegativeEntryIncludingFp8ScaledIgnores) {
  auto p = policy("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"ll\"\n");
  Table t;
  t.cells[1 * 3 + 0] = -1024.0f;  // NCCL multiplies FP8 Ring costs by 1024, -1 included
  t.cells[1 * 3 + 1] = std::numeric_limits<float>::quiet_NaN();
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.outcome, Decision::Outcome::kUnavailable);
  EXPECT_EQ(t.at(1, 0), -1024.0f);
}

TEST(Decide, WildcardsTakeTheCheapestNcclOffers) {
  auto p = policy("[[rule]]\nsize = \"2..\"\nprotocol = \"simple\"\n[[rule]]\nsize=\"1\"\nalgorithm = \"tree\"\n");
  Table t;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.algorithm, 1) << "Ring/Simple 26.5 beats Tree/Simple 30.2 and NVLSTree 35";
  EXPECT_EQ(d.protocol, 2);
}

TEST(Decide, ChannelsOnlyWhenTheRuleSetsThem) {
  auto p = policy(R"(
[[rule]]
size = "..4K"
protocol = "ll"
[[rule]]
size = "4K..64K"
protocol = "ll"
channels = 4
[[rule]]
size = "64K..1M"
channels = 16
)");
  Table t;
  int nChannels = 0;
  run(p, t, allReduce(1024), &nChannels);
  EXPECT_EQ(nChannels, 0) << "0 means NCCL decides";
  Table t2;
  run(p, t2, allReduce(8192), &nChannels);
  EXPECT_EQ(nChannels, 4);
  nChannels = 0;
  Table t3;
  Table before = t3;
  Decision d = run(p, t3, allReduce(128 * 1024), &nChannels);
  EXPECT_EQ(d.outcome, Decision::Outcome::kChannelsOnly);
  EXPECT_EQ(nChannels, 16);
  EXPECT_EQ(t3.cells, before.cells);
}

TEST(Decide, NoChannelsWhenThePreferenceWasUnavailable) {
  auto p = policy("[[rule]]\nalgorithm = \"pat\"\nprotocol = \"simple\"\nchannels = 2\n");
  Table t;
  int nChannels = 0;
  EXPECT_EQ(run(p, t, allReduce(4096), &nChannels).outcome, Decision::Outcome::kUnavailable);
  EXPECT_EQ(nChannels, 0) << "a channel count tuned for another algorithm must not leak into NCCL's choice";
}

TEST(Decide, SixAlgorithmTablesOfOlderNcclAreBoundsChecked) {
  auto p = policy("[[rule]]\nalgorithm = [\"pat\", \"ring\"]\nprotocol = \"ll\"\n");
  Table t;
  t.numAlgo = 6;  // NCCL < 2.23: no PAT row; the 7th row is not NCCL's memory
  t.cells[6 * 3 + 0] = 1.0f;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.algorithm, 1);
  EXPECT_EQ(t.at(6, 0), 1.0f) << "untouched past numAlgo";
}

TEST(Decide, PipeOpsAndRegBuffSelectors) {
  auto p = policy(R"(
[[rule]]
pipe_ops = "2.."
algorithm = "tree"
protocol = "ll"
[[rule]]
reg_buff = true
algorithm = "ring"
protocol = "ll128"
[[rule]]
protocol = "simple"
)");
  Table t1;
  EXPECT_EQ(run(p, t1, CallInputs{4, 4096, 3, 0}).rule, 0);
  Table t2;
  EXPECT_EQ(run(p, t2, CallInputs{4, 4096, 1, 1}).rule, 1);
  Table t3;
  EXPECT_EQ(run(p, t3, CallInputs{4, 4096, 1, 0}).rule, 2);
}

TEST(Decide, NcclCsvPassesUnavailableChoicesToTheNextMatchingRule) {
  auto doc = parseNcclCsv("allreduce,0,1048576,collnet_direct,simple,-1,-1,-1\nallreduce,0,1048576,tree,ll,-1,-1,-1\n",
                          "c.csv");
  auto p = std::make_shared<const Policy>(*doc.policy);
  Table t;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.rule, 1);
  EXPECT_EQ(d.algorithm, 0);
}

TEST(Decide, NcclDefaultChoiceIsTheStrictMinimumAlgorithmMajor) {
  Table t;
  int a = -1, p = -1;
  ASSERT_TRUE(ncclDefaultChoice(t.view(), &a, &p));
  EXPECT_EQ(a, 1);
  EXPECT_EQ(p, 0);
  for (float& c : t.cells) c = kOff;
  EXPECT_FALSE(ncclDefaultChoice(t.view(), &a, &p));
}

TEST(CompiledPolicy, DropsRulesThatCannotMatchThisCommunicator) {
  auto p = policy("[[rule]]\nnodes = 1\nprotocol=\"ll\"\n[[rule]]\nranks = \"8..=16\"\nprotocol=\"simple\"\n");
  EXPECT_EQ(CompiledPolicy(p, 16, 2).applicableRules(), 1u);
  EXPECT_EQ(CompiledPolicy(p, 8, 1).applicableRules(), 2u);
  EXPECT_EQ(CompiledPolicy(p, 32, 4).applicableRules(), 0u);
}

TEST(CompiledPolicy, SegmentsCoverTheWholeSizeRangeIncludingTheTop) {
  auto p = policy("[[rule]]\nsize = \"1M..\"\nprotocol=\"simple\"\n[[rule]]\nsize = \"..1K\"\nprotocol=\"ll\"\n");
  CompiledPolicy c(p, 2, 2);
  auto top = c.candidates(4, UINT64_MAX);
  ASSERT_EQ(top.end - top.begin, 1);
  EXPECT_EQ(top.begin->rule, 0u);
  auto gap = c.candidates(4, 4096);
  EXPECT_EQ(gap.end - gap.begin, 0);
  auto zero = c.candidates(4, 0);
  ASSERT_EQ(zero.end - zero.begin, 1);
  EXPECT_EQ(zero.begin->rule, 1u);
  auto bad = c.candidates(9, 0);
  EXPECT_EQ(bad.begin, bad.end) << "collectives past AllReduce never match";
}

}  // namespace
}  // namespace nccl_roce::tuner

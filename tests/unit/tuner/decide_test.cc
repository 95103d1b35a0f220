// What NCCL is told for one call: first match, preferences falling through to what is available, never an
// unavailable entry, nChannels 0 unless a rule sets it, 6- and 7-algorithm tables.
#include "tuner/decide.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "policy/nccl_csv.h"
#include "policy/policy_toml.h"
#include "tuner/compiled_policy.h"

namespace nccl_roce::tuner {
namespace {

constexpr float kOff = -1.0f;  // NCCL_ALGO_PROTO_IGNORE

std::shared_ptr<const policy::Policy> policy(const std::string& rules) {
  auto doc = policy::parsePolicyToml("[policy]\nname = \"t\"\n" + rules, "t.toml");
  EXPECT_TRUE(doc.ok()) << policy::joinErrors(doc.errors);
  return std::make_shared<const policy::Policy>(*doc.policy);
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

Decision run(const std::shared_ptr<const policy::Policy>& p, Table& t, CallInputs call, int* nChannels = nullptr,
             uint64_t nRanks = 16, uint64_t nNodes = 2) {
  CompiledPolicy compiled(p, nRanks, nNodes);
  CostTable view = t.view();
  Decision d = decide(compiled, call, view);
  int ignored = 0;
  applyDecision(d, view, nChannels ? nChannels : &ignored);
  return d;
}

CallInputs allReduce(uint64_t bytes) {
  return CallInputs{4, bytes, 1, 0};
}

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

// NCCL runs an entry when `cost >= 0.0` (topoGetAlgoInfo in src/enqueue.cc): -0.0 passes that test, so it is
// available like 0.0, and marking it 0.0 changes nothing NCCL would not already do.
TEST(Decide, NegativeZeroIsAvailableAsNcclTreatsIt) {
  EXPECT_TRUE(isAvailable(-0.0f));
  EXPECT_TRUE(isAvailable(0.0f));
  EXPECT_FALSE(isAvailable(-1.0f));
  EXPECT_FALSE(isAvailable(-1024.0f));
  EXPECT_FALSE(isAvailable(std::numeric_limits<float>::quiet_NaN()));
  auto named = policy("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"ll\"\n");
  Table t;
  t.cells[1 * 3 + 0] = -0.0f;
  Decision d = run(named, t, allReduce(4096));
  EXPECT_EQ(d.outcome, Decision::Outcome::kChosen);
  EXPECT_EQ(t.at(1, 0), 0.0f);
  auto wildcard = policy("[[rule]]\nprotocol = \"ll\"\n");
  Table u;
  u.cells[1 * 3 + 0] = -0.0f;
  Decision e = run(wildcard, u, allReduce(4096));
  EXPECT_EQ(e.algorithm, 1) << "-0.0 is the cheapest LL entry (Tree/LL costs 20.1)";
  int a = -1, p = -1;
  Table v;
  v.cells[1 * 3 + 0] = -0.0f;
  ASSERT_TRUE(ncclDefaultChoice(v.view(), SelectionRule::kFirstSmallestAvailable, &a, &p));
  EXPECT_EQ(a, 1) << "NCCL itself would pick it";
  EXPECT_EQ(p, 0);
}

TEST(Decide, WildcardsTakeTheCheapestNcclOffers) {
  auto p = policy("[[rule]]\nsize = \"2..\"\nprotocol = \"simple\"\n[[rule]]\nsize=\"1\"\nalgorithm = \"tree\"\n");
  Table t;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.algorithm, 1) << "Ring/Simple 26.5 beats Tree/Simple 30.2 and NVLSTree 35";
  EXPECT_EQ(d.protocol, 2);
}

// Over NCCL-like tables (negatives, the FP8 -1024, NaN, +inf, -0.0, ties) a wildcard picks what NCCL's own
// scan would pick within its row or column: the first strictly cheapest entry >= 0.
TEST(Decide, WildcardScansAgreeWithAPlainFloatScan) {
  auto byProtocol = policy("[[rule]]\nprotocol = \"ll128\"\n");
  auto byAlgorithm = policy("[[rule]]\nalgorithm = \"ring\"\n");
  std::mt19937 random(5);
  const float kOdd[] = {kOff,
                        -1024.0f,
                        std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity(),
                        0.0f,
                        -0.0f,
                        12.5f,
                        12.5f,
                        3e9f};
  for (int round = 0; round < 2000; ++round) {
    Table t;
    t.numAlgo = round % 2 ? 7 : 6;
    for (float& c : t.cells) c = random() % 3 ? kOdd[random() % 9] : static_cast<float>(random() % 50);
    auto reference = [&](bool column) {
      int found = -1;
      float best = std::numeric_limits<float>::infinity();
      for (int i = 0; i < (column ? t.numAlgo : 3); ++i) {
        float c = column ? t.at(i, 1) : t.at(1, i);
        if (c >= 0.0f && c < best) best = c, found = i;
      }
      return found;
    };
    int column = reference(true), row = reference(false);
    Table a = t, b = t;
    Decision d = run(byProtocol, a, allReduce(4096));
    EXPECT_EQ(d.outcome == Decision::Outcome::kChosen ? d.algorithm : -1, column) << "round " << round;
    Decision e = run(byAlgorithm, b, allReduce(4096));
    EXPECT_EQ(e.outcome == Decision::Outcome::kChosen ? e.protocol : -1, row) << "round " << round;
  }
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
  EXPECT_EQ(d.outcome, Decision::Outcome::kSettingsOnly);
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
  auto doc = policy::parseNcclCsv(
      "allreduce,0,1048576,collnet_direct,simple,-1,-1,-1\nallreduce,0,1048576,tree,ll,-1,-1,-1\n", "c.csv");
  auto p = std::make_shared<const policy::Policy>(*doc.policy);
  Table t;
  Decision d = run(p, t, allReduce(4096));
  EXPECT_EQ(d.rule, 1);
  EXPECT_EQ(d.algorithm, 0);
}

TEST(Decide, NcclDefaultChoiceIsTheStrictMinimumAlgorithmMajor) {
  for (SelectionRule rule : {SelectionRule::kFirstSmallestAvailable, SelectionRule::kLastPlainMinimum}) {
    Table t;
    int a = -1, p = -1;
    ASSERT_TRUE(ncclDefaultChoice(t.view(), rule, &a, &p));
    EXPECT_EQ(a, 1);
    EXPECT_EQ(p, 0);
    for (float& c : t.cells) c = kOff;
    EXPECT_FALSE(ncclDefaultChoice(t.view(), rule, &a, &p));
  }
}

// Of equal costs NCCL through 2.30 runs the first (algorithm-major), 2.31 and later the last: what the tuner
// records as NCCL's own choice follows the NCCL calling.
TEST(Decide, NcclDefaultChoiceBreaksTiesAsEachLineDoes) {
  Table t;
  t.cells[0 * 3 + 1] = 18.3f;  // Tree/LL128 ties Ring/LL at the minimum
  t.cells[4 * 3 + 2] = 18.3f;  // and NVLS/Simple
  int a = -1, p = -1;
  ASSERT_TRUE(ncclDefaultChoice(t.view(), SelectionRule::kFirstSmallestAvailable, &a, &p));
  EXPECT_EQ(a * 3 + p, 0 * 3 + 1);
  ASSERT_TRUE(ncclDefaultChoice(t.view(), SelectionRule::kLastPlainMinimum, &a, &p));
  EXPECT_EQ(a * 3 + p, 4 * 3 + 2);
}

// The chosen entry must be the only one as cheap as 0.0, whichever end of a tie NCCL takes: any other available
// 0.0 or -0.0 is raised to kAvoidCost; positive and unavailable entries keep their exact bits.
TEST(Decide, AChoiceIsTheOnlyEntryAsCheapAsZero) {
  auto p = policy("[[rule]]\nalgorithm = \"ring\"\nprotocol = \"ll128\"\n");
  Table t;
  t.cells[0 * 3 + 0] = 0.0f;
  t.cells[4 * 3 + 2] = -0.0f;
  t.cells[5 * 3 + 2] = kOff;
  Table before = t;
  Decision d = run(p, t, allReduce(4096));
  ASSERT_EQ(d.outcome, Decision::Outcome::kChosen);
  EXPECT_EQ(t.at(1, 1), 0.0f);
  EXPECT_EQ(t.at(0, 0), kAvoidCost);
  EXPECT_EQ(t.at(4, 2), kAvoidCost);
  for (size_t i = 0; i < t.cells.size(); ++i) {
    if (i == 1 * 3 + 1 || i == 0 || i == 4 * 3 + 2) continue;
    EXPECT_EQ(std::memcmp(&t.cells[i], &before.cells[i], sizeof(float)), 0) << "entry " << i;
  }
}

// The specification of decide(), read off the policy with no index: rules in file order, the first whose
// selectors all match decides with its first available preference (a wildcard: the first strictly cheapest
// entry >= 0 of its row or column, as NCCL scans); with NCCL's CSV semantics a rule with none available passes
// the call on.
Decision plainReading(const policy::Policy& p, const CallInputs& call, uint64_t nRanks, uint64_t nNodes, Table& t) {
  auto cheapest = [&t](int algorithm, int protocol) {
    policy::Choice best{-1, -1};
    float bestCost = std::numeric_limits<float>::max();
    for (int a = 0; a < t.numAlgo; ++a) {
      for (int q = 0; q < 3; ++q) {
        bool inLine = algorithm >= 0 ? a == algorithm : q == protocol;
        if (inLine && t.at(a, q) >= 0.0f && t.at(a, q) < bestCost) best = {a, q}, bestCost = t.at(a, q);
      }
    }
    return best;
  };
  Decision d;
  for (size_t i = 0; i < p.rules.size(); ++i) {
    const policy::Rule& r = p.rules[i];
    bool matches = (r.collectives >> call.collective & 1) && r.bytes.contains(call.bytes) && r.ranks.contains(nRanks) &&
                   r.nodes.contains(nNodes) && r.pipeOps.contains(static_cast<uint64_t>(call.pipeOps)) &&
                   (!r.regBuff || *r.regBuff == (call.regBuff != 0));
    if (!matches) continue;
    d.rule = static_cast<int>(i);
    if (r.choices.empty()) {
      d.outcome =
          r.channels > 0 || r.chunkSizes.any() ? Decision::Outcome::kSettingsOnly : Decision::Outcome::kPassThrough;
      d.channels = r.channels;
      return d;
    }
    for (const policy::Choice& c : r.choices) {
      policy::Choice found =
          c.algorithm >= 0 && c.protocol >= 0
              ? (c.algorithm < t.numAlgo && t.at(c.algorithm, c.protocol) >= 0.0f ? c : policy::Choice{-1, -1})
              : cheapest(c.algorithm, c.protocol);
      if (found.algorithm < 0) continue;
      d.outcome = Decision::Outcome::kChosen;
      d.algorithm = found.algorithm;
      d.protocol = found.protocol;
      d.channels = r.channels;
      return d;
    }
    d.outcome = Decision::Outcome::kUnavailable;
    if (!p.unavailableFallsThrough) return d;
  }
  return d;
}

policy::Policy randomPolicy(std::mt19937& random) {
  policy::Policy p;
  p.unavailableFallsThrough = random() % 2 == 0;
  const uint64_t kSizes[] = {0, 1024, 4096, 65536, 1 << 20, UINT64_MAX};
  for (size_t n = 1 + random() % 12; n > 0; --n) {
    policy::Rule r;
    r.collectives = random() % 3 ? 1u << telemetry::kCollAllReduce : policy::kAllCollectives;
    uint64_t a = kSizes[random() % 6], b = kSizes[random() % 6];
    if (random() % 2) r.bytes = a <= b ? policy::ValueRange{a, b} : policy::ValueRange{b, a};
    if (random() % 3 == 0) r.nodes = {2, 2};
    if (random() % 4 == 0) r.pipeOps = {2, UINT64_MAX};
    if (random() % 5 == 0) r.regBuff = random() % 2 == 0;
    for (size_t k = random() % 4; k > 0; --k) {
      int algorithm = static_cast<int>(random() % 8) - 1, protocol = static_cast<int>(random() % 4) - 1;
      if (algorithm < 0 && protocol < 0) protocol = 1;
      r.choices.push_back({algorithm, protocol});
    }
    r.channels = random() % 4 == 0 ? 1 + static_cast<int>(random() % 64) : 0;
    p.rules.push_back(r);
  }
  return p;
}

TEST(Decide, AgreesWithAPlainReadingOfThePolicyOnNcclLikeTables) {
  std::mt19937 random(11);
  const float kOdd[] = {kOff, -1024.0f, std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f, 7.0f};
  for (int round = 0; round < 3000; ++round) {
    auto p = std::make_shared<const policy::Policy>(randomPolicy(random));
    uint64_t nNodes = 1 + random() % 2;
    Table t;
    t.numAlgo = round % 3 ? 7 : 6;
    for (float& c : t.cells) c = random() % 2 ? kOdd[random() % 6] : static_cast<float>(random() % 40);
    const uint64_t kBytes[] = {0, 1000, 4096, 65536, 1 << 20, UINT64_MAX};
    CallInputs call{static_cast<int>(random() % 5), kBytes[random() % 6], 1 + static_cast<int>(random() % 3),
                    static_cast<int>(random() % 2)};
    Table expectedTable = t;
    Decision expected = plainReading(*p, call, nNodes * 8, nNodes, expectedTable);
    CompiledPolicy compiled(p, nNodes * 8, nNodes);
    Decision d = decide(compiled, call, t.view());
    ASSERT_EQ(d.outcome, expected.outcome) << "round " << round;
    EXPECT_EQ(d.rule, expected.rule) << "round " << round;
    EXPECT_EQ(d.algorithm, expected.algorithm) << "round " << round;
    EXPECT_EQ(d.protocol, expected.protocol) << "round " << round;
    EXPECT_EQ(d.channels, expected.channels) << "round " << round;
  }
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
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(*top.begin(), 0u);
  EXPECT_EQ(c.candidates(4, 4096).size(), 0u);
  auto zero = c.candidates(4, 0);
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_EQ(*zero.begin(), 1u);
  EXPECT_EQ(c.candidates(9, 0).size(), 0u) << "collectives past AllReduce never match";
  EXPECT_EQ(c.candidates(-1, 0).size(), 0u);
}

}  // namespace
}  // namespace nccl_roce::tuner

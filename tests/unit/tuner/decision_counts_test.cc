// Decision counts: per collective x power-of-two size bucket x choice x who decided, handed out typed with the
// deciding rule's name (how the statistics file writes them: tests/unit/telemetry/stats_file_test.cc).
#include "tuner/decision_counts.h"

#include <gtest/gtest.h>

namespace nccl_roce::tuner {
namespace {

using telemetry::cellKey;
using telemetry::DecisionCount;
using telemetry::DecisionSource;
constexpr int kAllReduce = 4, kAllGather = 2;
constexpr int kTree = 0, kRing = 1, kLL = 0, kSimple = 2;

policy::Policy policyWithRules() {
  policy::Policy p;
  policy::Rule named;
  named.name = "decode-ll";
  policy::Rule unnamed;
  unnamed.position = {12, 1};
  p.rules = {named, unnamed};
  return p;
}

TEST(DecisionCounts, CountsEachChoiceOfEachBucketAndWhoMadeIt) {
  DecisionCounts counts;
  for (int i = 0; i < 3; ++i) counts.record(cellKey(kAllReduce, 4096 + i, kRing, kLL, 0), DecisionSource::kRule, 0);
  counts.record(cellKey(kAllReduce, 5000, kTree, kSimple, 0), DecisionSource::kUnavailable, 1);
  counts.record(cellKey(kAllGather, 1 << 20, kRing, kSimple, 0), DecisionSource::kNccl, -1);
  counts.record(cellKey(kAllReduce, 4096, kRing, kLL, 8), DecisionSource::kRule, 0);  // same bucket, other channels

  telemetry::DecisionTotals totals = counts.totals();
  EXPECT_EQ(totals.calls, 6u);
  EXPECT_EQ(totals.fromRules, 4u);
  EXPECT_EQ(totals.unavailable, 1u);

  policy::Policy policy = policyWithRules();
  std::vector<DecisionCount> d = counts.snapshot(&policy);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].key.collective, kAllGather) << "sorted by collective first: AllGather (2) before AllReduce (4)";
  EXPECT_EQ(d[0].source, DecisionSource::kNccl);
  EXPECT_EQ(d[0].rule, "");
  EXPECT_EQ(d[1].key.choice.algorithm, kTree) << "then algorithm: Tree before Ring";
  EXPECT_EQ(d[1].source, DecisionSource::kUnavailable) << "a rule matched, but NCCL's own choice ran";
  EXPECT_EQ(d[1].rule, "line 12") << "an unnamed rule is named by its line";
  EXPECT_EQ(d[2].key, cellKey(kAllReduce, 4096, kRing, kLL, 0));
  EXPECT_EQ(d[2].rule, "decode-ll");
  EXPECT_EQ(d[2].count, 3u);
  EXPECT_EQ(d[3].key.choice.channels, 8);
  EXPECT_EQ(d[3].count, 1u);
  EXPECT_EQ(telemetry::totalsOf(d).calls, totals.calls);
}

TEST(DecisionCounts, KeepsEveryDistinctDecisionAsTheTableGrows) {
  DecisionCounts counts;
  // 5 collectives x 40 buckets x 2 protocols: far more than the initial table holds.
  for (int round = 0; round < 2; ++round) {
    for (int c = 0; c < 5; ++c) {
      for (int b = 0; b < 40; ++b) {
        for (int p = 0; p < 2; ++p) counts.record(cellKey(c, uint64_t{1} << b, kRing, p, 0), DecisionSource::kNccl, -1);
      }
    }
  }
  std::vector<DecisionCount> d = counts.snapshot(nullptr);
  ASSERT_EQ(d.size(), 400u);
  for (const DecisionCount& line : d) EXPECT_EQ(line.count, 2u);
  EXPECT_EQ(counts.totals().calls, 800u);
}

TEST(DecisionCounts, OddValuesFromNcclAreCountedNotTrusted) {
  DecisionCounts counts;
  counts.record(cellKey(99, 0, -1, -1, 0), DecisionSource::kNccl, -1);  // unknown collective, no available entry
  std::vector<DecisionCount> d = counts.snapshot(nullptr);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].key.collective, -1);
  EXPECT_EQ(d[0].key.choice.algorithm, -1);
  EXPECT_EQ(d[0].key.bucket, 0);
}

TEST(DecisionCounts, RulesOutsideThePolicyHaveNoName) {
  DecisionCounts counts;
  counts.record(cellKey(kAllReduce, 4096, kRing, kLL, 0), DecisionSource::kRule, 7);
  policy::Policy policy = policyWithRules();
  EXPECT_EQ(counts.snapshot(&policy)[0].rule, "");
  EXPECT_EQ(ruleName(policy, -1), "");
  EXPECT_EQ(ruleName(policy, 0), "decode-ll");
}

// A chunk size is part of what ran: decisions that differ only by it are counted apart.
TEST(DecisionCounts, ChunkSizesAreCountedApart) {
  DecisionCounts counts;
  counts.record(cellKey(kAllReduce, 4096, kRing, kLL, 0), DecisionSource::kRule, 0);
  counts.record(cellKey(kAllReduce, 4096, kRing, kLL, 0, 131072), DecisionSource::kRule, 0);
  std::vector<DecisionCount> d = counts.snapshot(nullptr);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key.choice.chunkSize, 0u);
  EXPECT_EQ(d[1].key.choice.chunkSize, 131072u);
}

}  // namespace
}  // namespace nccl_roce::tuner

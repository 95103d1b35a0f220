// Decision statistics: counts per collective x power-of-two size bucket x choice x who decided, in a JSON
// shape that joins with serving metrics (the file they go into: tests/unit/plugin/telemetry_file_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tuner/decision_counts.h"

namespace nccl_roce::tuner {
namespace {

using Source = DecisionCounts::Source;
constexpr int kAllReduce = 4, kAllGather = 2;
constexpr int kTree = 0, kRing = 1, kLL = 0, kSimple = 2;

Policy policyWithRules() {
  Policy p;
  Rule named;
  named.name = "decode-ll";
  Rule unnamed;
  unnamed.position = {12, 1};
  p.rules = {named, unnamed};
  return p;
}

TEST(DecisionCounts, CountsEachChoiceOfEachBucketAndWhoMadeIt) {
  DecisionCounts stats;
  for (int i = 0; i < 3; ++i) stats.record(telemetry::cellKey(kAllReduce, 4096 + i, kRing, kLL, 0), Source::kRule, 0);
  stats.record(telemetry::cellKey(kAllReduce, 5000, kTree, kSimple, 0), Source::kUnavailable, 1);
  stats.record(telemetry::cellKey(kAllGather, 1 << 20, kRing, kSimple, 0), Source::kNccl, -1);
  stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 8), Source::kRule,
               0);  // same bucket, other channel count

  DecisionCounts::Totals totals = stats.totals();
  EXPECT_EQ(totals.calls, 6u);
  EXPECT_EQ(totals.fromRules, 4u);
  EXPECT_EQ(totals.unavailable, 1u);

  nlohmann::json j = nlohmann::json::parse(stats.toJson(policyWithRules()).dump());
  EXPECT_EQ(j["calls"], 6);
  ASSERT_EQ(j["decisions"].size(), 4u);
  const auto& gather = j["decisions"][0];  // sorted by collective first: AllGather (2) before AllReduce (4)
  EXPECT_EQ(gather["collective"], "AllGather");
  EXPECT_EQ(gather["bucket"], "1M-2M");
  EXPECT_EQ(gather["source"], "nccl");
  EXPECT_TRUE(gather["rule"].is_null());
  const auto& unavailable = j["decisions"][1];  // then algorithm: Tree before Ring
  EXPECT_EQ(unavailable["algorithm"], "Tree");
  EXPECT_EQ(unavailable["protocol"], "Simple");
  EXPECT_EQ(unavailable["source"], "unavailable") << "a rule matched, but NCCL's own choice ran";
  EXPECT_EQ(unavailable["rule"], "line 12") << "an unnamed rule is named by its line";
  const auto& ll = j["decisions"][2];
  EXPECT_EQ(ll["bucket"], "4K-8K");
  EXPECT_EQ(ll["size_min"], 4096);
  EXPECT_EQ(ll["size_max"], 8191);
  EXPECT_EQ(ll["channels"], 0);
  EXPECT_EQ(ll["rule"], "decode-ll");
  EXPECT_EQ(ll["count"], 3);
  EXPECT_EQ(j["decisions"][3]["channels"], 8);
  EXPECT_EQ(j["decisions"][3]["count"], 1);
}

TEST(DecisionCounts, KeepsEveryDistinctDecisionAsTheTableGrows) {
  DecisionCounts stats;
  // 5 collectives x 40 buckets x 2 protocols: far more than the initial table holds.
  for (int round = 0; round < 2; ++round) {
    for (int c = 0; c < 5; ++c) {
      for (int b = 0; b < 40; ++b) {
        for (int p = 0; p < 2; ++p)
          stats.record(telemetry::cellKey(c, uint64_t{1} << b, kRing, p, 0), Source::kNccl, -1);
      }
    }
  }
  nlohmann::json j = nlohmann::json::parse(stats.toJson(Policy{}).dump());
  ASSERT_EQ(j["decisions"].size(), 400u);
  for (const auto& d : j["decisions"]) EXPECT_EQ(d["count"], 2);
  EXPECT_EQ(j["calls"], 800);
}

TEST(DecisionCounts, OddValuesFromNcclAreCountedNotTrusted) {
  DecisionCounts stats;
  stats.record(telemetry::cellKey(99, 0, -1, -1, 0), Source::kNccl, -1);  // unknown collective, no available entry
  nlohmann::json j = nlohmann::json::parse(stats.toJson(Policy{}).dump());
  ASSERT_EQ(j["decisions"].size(), 1u);
  EXPECT_EQ(j["decisions"][0]["collective"], "unknown");
  EXPECT_TRUE(j["decisions"][0]["algorithm"].is_null());
  EXPECT_EQ(j["decisions"][0]["bucket"], "0-2");
}

// The profiler labels each timing with the rule that decided most of its key's calls (channels aside).
TEST(DecisionCounts, NamesTheRuleThatDecidedMostCallsOfAChoice) {
  DecisionCounts stats;
  for (int i = 0; i < 3; ++i) stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 0), Source::kRule, 1);
  stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 8), Source::kRule, 0);
  stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 0), Source::kNccl, -1);
  EXPECT_EQ(stats.ruleFor(kAllReduce, 12, kRing, kLL), 1);
  EXPECT_EQ(stats.ruleFor(kAllReduce, 12, kTree, kLL), -1) << "no rule chose Tree";
}

// A chunk size is part of what ran: decisions that differ only by it are counted apart, and one that is NCCL's
// own (0) writes no member.
TEST(DecisionCounts, ChunkSizesAreCountedApartAndWrittenWhenSet) {
  DecisionCounts stats;
  stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 0), Source::kRule, 0);
  stats.record(telemetry::cellKey(kAllReduce, 4096, kRing, kLL, 0, 131072), Source::kRule, 0);
  nlohmann::json j = nlohmann::json::parse(stats.toJson(policyWithRules()).dump());
  ASSERT_EQ(j["decisions"].size(), 2u);
  EXPECT_FALSE(j["decisions"][0].contains("chunk_size"));
  EXPECT_EQ(j["decisions"][1]["chunk_size"], 131072);
}

}  // namespace
}  // namespace nccl_roce::tuner

// The compiled lookup is an index, not a second semantics: for any policy and any call it finds exactly the
// rules a plain scan in file order finds, in the same order.
#include "tuner/compiled_policy.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

namespace nccl_roce::tuner {
namespace {

struct Call {
  int collective;
  uint64_t bytes;
  int pipeOps;
  int regBuff;
};

bool matches(const policy::Rule& r, const Call& c, uint64_t nRanks, uint64_t nNodes) {
  return (r.collectives & (1u << c.collective)) && r.bytes.contains(c.bytes) && r.nodes.contains(nNodes) &&
         r.ranks.contains(nRanks) && r.pipeOps.contains(static_cast<uint64_t>(c.pipeOps)) &&
         (!r.regBuff || *r.regBuff == (c.regBuff != 0));
}

// The specification: every rule that matches, in file order.
std::vector<uint32_t> scan(const policy::Policy& p, const Call& c, uint64_t nRanks, uint64_t nNodes) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < p.rules.size(); ++i) {
    if (matches(p.rules[i], c, nRanks, nNodes)) out.push_back(i);
  }
  return out;
}

std::vector<uint32_t> lookup(const CompiledPolicy& compiled, const Call& c) {
  std::vector<uint32_t> out;
  for (uint32_t index : compiled.candidates(c.collective, c.bytes)) {
    if (ruleMatchesCall(compiled.rule(index), c.pipeOps, c.regBuff)) out.push_back(index);
  }
  return out;
}

// Sizes drawn near a few boundaries, so that ranges overlap, nest and touch.
uint64_t boundary(std::mt19937_64& random) {
  static const uint64_t kPoints[] = {0,     1,       4095,          4096,           65535,
                                     65536, 1 << 20, (1 << 20) + 1, UINT64_MAX - 1, UINT64_MAX};
  return kPoints[random() % (sizeof(kPoints) / sizeof(kPoints[0]))] + (random() % 3 == 0 ? random() % 8 : 0);
}

policy::ValueRange randomRange(std::mt19937_64& random, uint64_t (*draw)(std::mt19937_64&)) {
  if (random() % 3 == 0) return {};
  uint64_t a = draw(random), b = draw(random);
  return a <= b ? policy::ValueRange{a, b} : policy::ValueRange{b, a};
}

uint64_t smallCount(std::mt19937_64& random) {
  return 1 + random() % 8;
}

policy::Policy randomPolicy(std::mt19937_64& random, bool fallsThrough) {
  policy::Policy p;
  p.name = "random";
  p.unavailableFallsThrough = fallsThrough;
  size_t n = 1 + random() % 40;
  for (size_t i = 0; i < n; ++i) {
    policy::Rule r;
    r.collectives =
        random() % 4 == 0 ? policy::kAllCollectives : static_cast<uint32_t>(1 + random() % policy::kAllCollectives);
    r.bytes = randomRange(random, boundary);
    r.nodes = randomRange(random, smallCount);
    r.ranks = randomRange(random, smallCount);
    r.pipeOps = random() % 2 ? policy::ValueRange{} : randomRange(random, smallCount);
    if (random() % 3 == 0) r.regBuff = random() % 2 == 0;
    r.choices.push_back({static_cast<int>(random() % 7), static_cast<int>(random() % 3)});
    p.rules.push_back(r);
  }
  return p;
}

TEST(CompiledPolicy, FindsWhatAScanInFileOrderFinds) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 400; ++round) {
    bool fallsThrough = round % 2 == 1;
    auto policy = std::make_shared<const policy::Policy>(randomPolicy(random, fallsThrough));
    uint64_t nRanks = smallCount(random), nNodes = smallCount(random);
    CompiledPolicy compiled(policy, nRanks, nNodes);
    for (int i = 0; i < 200; ++i) {
      Call c{static_cast<int>(random() % 5), boundary(random), static_cast<int>(smallCount(random)),
             static_cast<int>(random() % 2)};
      std::vector<uint32_t> expected = scan(*policy, c, nRanks, nNodes);
      std::vector<uint32_t> found = lookup(compiled, c);
      if (fallsThrough) {
        // NCCL's CSV semantics need the whole chain of matching rules, in order.
        EXPECT_EQ(found, expected) << "round " << round << " bytes " << c.bytes;
      } else {
        // First match: the lookup may stop after a rule that always matches, but never differs on the first.
        ASSERT_EQ(found.empty(), expected.empty()) << "round " << round << " bytes " << c.bytes;
        if (!expected.empty()) {
          EXPECT_EQ(found.front(), expected.front()) << "round " << round << " bytes " << c.bytes;
        }
      }
    }
  }
}

TEST(CompiledPolicy, DropsRulesForOtherCommunicatorShapes) {
  policy::Policy p;
  policy::Rule twoNodes;
  twoNodes.nodes = {2, 2};
  policy::Rule sixteenRanks;
  sixteenRanks.ranks = {16, 16};
  p.rules = {twoNodes, sixteenRanks, policy::Rule{}};
  auto shared = std::make_shared<const policy::Policy>(p);
  EXPECT_EQ(CompiledPolicy(shared, 16, 2).applicableRules(), 3u);
  EXPECT_EQ(CompiledPolicy(shared, 8, 1).applicableRules(), 1u);
  EXPECT_EQ(lookup(CompiledPolicy(shared, 8, 1), {4, 4096, 1, 0}), std::vector<uint32_t>{2});
}

TEST(CompiledPolicy, SaysWhenTooManyRulesStackUpOnOneCall) {
  policy::Policy p;
  p.unavailableFallsThrough = true;  // every matching rule is a fallback
  for (size_t i = 0; i <= CompiledPolicy::kMaxCandidatesPerSegment; ++i) p.rules.push_back(policy::Rule{});
  auto shared = std::make_shared<const policy::Policy>(p);
  CompiledPolicy compiled(shared, 16, 2);
  EXPECT_TRUE(compiled.truncated());
  EXPECT_EQ(lookup(compiled, {4, 1, 1, 0}).size(), CompiledPolicy::kMaxCandidatesPerSegment);
  p.rules.pop_back();
  EXPECT_FALSE(CompiledPolicy(std::make_shared<const policy::Policy>(p), 16, 2).truncated());
}

}  // namespace
}  // namespace nccl_roce::tuner

// How a communicator's timings take the tuner's rule labels and chunk sizes, and what "counted more" means for
// two states of one communicator.
#include "telemetry/communicator_snapshot.h"

#include <gtest/gtest.h>

#include "telemetry/chunk_size.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kTree = 0, kLL = 0, kSimple = 2;

KeyTimings timedOn(int algorithm, int protocol, int channels, uint64_t bytes, int collectives) {
  KeyTimings k;
  k.key = cellKey(kAllReduce, bytes, algorithm, protocol, channels);
  k.key.source = TimingSource::kKernelGpu;
  for (int i = 0; i < collectives; ++i) k.histogram.record(20000 + 1000 * static_cast<uint64_t>(i));
  return k;
}

DecisionCount decided(int algorithm, int protocol, uint64_t bytes, const std::string& rule, uint64_t count,
                      uint32_t chunk = 0) {
  DecisionSource source = rule.empty() ? DecisionSource::kNccl : DecisionSource::kRule;
  return {cellKey(kAllReduce, bytes, algorithm, protocol, 0, chunk), source, rule, "", count};
}

// NCCL may run fewer channels than a rule asked for, so the match is on cell, algorithm and protocol; where two
// rules decided the same there (a policy changed under a pin, or the call mix), the one that decided more names it.
TEST(AttributeTimings, EachKeyTakesTheRuleThatDecidedMostOfItsCellAndChoice) {
  Timings t;
  t.keys = {timedOn(kRing, kLL, 4, 65536, 10), timedOn(kTree, kSimple, 8, 1 << 24, 3),
            timedOn(kRing, kSimple, 2, 4096, 1)};
  std::vector<DecisionCount> decisions = {
      decided(kRing, kLL, 65536, "small", 7, 262144), decided(kRing, kLL, 65536, "fallback", 3),
      decided(kTree, kSimple, 1 << 24, "", 3), decided(kRing, kSimple, 4096, "tiny", 1, ChunkSize::scaled(1).code())};
  attributeTimings(t, decisions);
  ASSERT_EQ(t.keys.size(), 3u);
  auto keyOf = [&](int bytes) {
    for (const KeyTimings& k : t.keys) {
      if (k.key.bucket == sizeBucket(static_cast<uint64_t>(bytes))) return k;
    }
    return KeyTimings();
  };
  EXPECT_EQ(keyOf(65536).rule, "small");
  EXPECT_EQ(keyOf(65536).key.choice.chunkSize, 262144u) << "the chunk size the deciding rule set there";
  EXPECT_EQ(keyOf(1 << 24).rule, "") << "NCCL decided";
  EXPECT_EQ(keyOf(1 << 24).key.choice.chunkSize, 0u);
  EXPECT_EQ(keyOf(4096).key.choice.chunkSize, ChunkSize::scaled(1).code());
  EXPECT_EQ(keyOf(65536).key.choice.channels, 4) << "what the kernel ran on stays";
}

TEST(AttributeTimings, WithoutDecisionsNothingIsLabelled) {
  Timings t;
  t.keys = {timedOn(kRing, kLL, 4, 65536, 2)};
  attributeTimings(t, {});
  EXPECT_EQ(t.keys[0].rule, "");
  EXPECT_EQ(t.keys[0].key.choice.chunkSize, 0u);
  EXPECT_EQ(t.keys[0].histogram.count(), 2u);
}

TEST(CommunicatorSnapshot, CumulativeCountAddsCallsAndTimedCollectives) {
  CommunicatorSnapshot s;
  EXPECT_EQ(s.cumulativeCount(), 0u);
  s.decisions = std::vector<DecisionCount>{decided(kRing, kLL, 65536, "a", 7), decided(kTree, kLL, 64, "", 5)};
  EXPECT_EQ(s.cumulativeCount(), 12u);
  s.timings.emplace();
  s.timings->keys = {timedOn(kRing, kLL, 4, 65536, 9)};
  EXPECT_EQ(s.cumulativeCount(), 21u);
}

}  // namespace
}  // namespace nccl_roce::telemetry

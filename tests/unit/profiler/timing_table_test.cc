// One communicator's key table: a histogram per key, found by the key's packed form once per collective.
#include "profiler/timing_table.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

TimingKey allReduce(uint8_t bucket, uint8_t channels = 1) {
  return {4, bucket, 1, 0, channels, TimingSource::kKernelGpu};
}

TEST(TimingKey, PacksAndUnpacksEveryField) {
  TimingKey k{-1, 63, 6, 2, 255, TimingSource::kKernelHost};
  TimingKey back = TimingKey::unpack(k.packed());
  EXPECT_EQ(back.collective, -1);
  EXPECT_EQ(back.bucket, 63);
  EXPECT_EQ(back.algorithm, 6);
  EXPECT_EQ(back.protocol, 2);
  EXPECT_EQ(back.channels, 255);
  EXPECT_EQ(back.source, TimingSource::kKernelHost);
  EXPECT_NE(TimingKey{}.packed(), 0u) << "0 means 'not timed' to the tracker";
}

TEST(TimingTable, AKeyKeepsItsIndexAndEachNewKeyGetsItsOwn) {
  TimingTable table;
  uint8_t a = table.indexOf(allReduce(10).packed());
  uint8_t b = table.indexOf(allReduce(11).packed());
  EXPECT_NE(a, b);
  EXPECT_EQ(table.indexOf(allReduce(10).packed()), a);
  EXPECT_EQ(table.packedAt(b), allReduce(11).packed());
  EXPECT_TRUE(table.record(a, 30000));
  EXPECT_TRUE(table.record(a, 31000));
  EXPECT_TRUE(table.record(allReduce(11), 50000));
  std::vector<TimingTable::Entry> e = table.entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].key.bucket, 10);
  EXPECT_EQ(e[0].histogram.count(), 2u);
  EXPECT_EQ(e[1].key.bucket, 11);
  EXPECT_EQ(e[1].histogram.count(), 1u);
}

// find() is what a Coll event runs: it answers keys seen before and adds none.
TEST(TimingTable, FindAnswersKnownKeysAndAddsNone) {
  TimingTable table;
  EXPECT_EQ(table.find(allReduce(12).packed()), TimingTable::kNoKey);
  EXPECT_EQ(table.find(allReduce(12).packed()), TimingTable::kNoKey) << "still not added";
  uint8_t index = table.indexOf(allReduce(12).packed());
  EXPECT_EQ(table.find(allReduce(12).packed()), index);
  for (uint8_t bucket = 0; bucket < 64; ++bucket) table.indexOf(allReduce(bucket, 2).packed());  // probes collide
  for (uint8_t bucket = 0; bucket < 64; ++bucket) {
    uint8_t found = table.find(allReduce(bucket, 2).packed());
    ASSERT_NE(found, TimingTable::kNoKey) << int{bucket};
    EXPECT_EQ(table.packedAt(found), allReduce(bucket, 2).packed());
  }
  EXPECT_EQ(table.find(allReduce(12).packed()), index);
}

TEST(TimingTable, KeysPastTheLimitAreCountedAsDropped) {
  TimingTable table;
  for (int i = 0; i < TimingTable::kMaxKeys; ++i) {
    uint8_t index = table.indexOf(allReduce(static_cast<uint8_t>(i % 64), static_cast<uint8_t>(1 + i / 64)).packed());
    ASSERT_LT(index, TimingTable::kMaxKeys);
    EXPECT_EQ(table.indexOf(allReduce(static_cast<uint8_t>(i % 64), static_cast<uint8_t>(1 + i / 64)).packed()), index);
  }
  uint8_t full = table.indexOf(allReduce(0, 9).packed());
  EXPECT_EQ(full, TimingTable::kNoKey);
  EXPECT_FALSE(table.record(full, 1000));
  EXPECT_EQ(table.dropped(Drop::kTooManyKeys), 1u);
  EXPECT_EQ(table.indexOf(allReduce(5, 1).packed()), table.indexOf(allReduce(5, 1).packed())) << "old keys still found";
  EXPECT_FALSE(table.record(table.indexOf(allReduce(5, 1).packed()), uint64_t{1} << 62));
  EXPECT_EQ(table.dropped(Drop::kTimerWrapped), 1u);
  EXPECT_TRUE(table.entries().empty()) << "keys without durations are not listed";
}

}  // namespace
}  // namespace nccl_roce::profiler

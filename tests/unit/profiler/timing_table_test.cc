// One communicator's key table: a histogram per key (the cell key decisions are counted under, with where the
// time came from), at most kMaxKeys of them, and counts of what could not be used.
#include "profiler/timing_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace nccl_roce::profiler {
namespace {

telemetry::CellKey allReduce(uint8_t bucket, uint8_t channels = 1) {
  telemetry::CellKey key = telemetry::cellKey(4, uint64_t{1} << bucket, 1, 0, channels);
  key.source = telemetry::TimingSource::kKernelGpu;
  return key;
}

// Every entry, as the tracker collects them, in key order.
std::vector<const TimingTable::Entry*> collected(const TimingTable& table) {
  std::vector<const TimingTable::Entry*> out;
  out.reserve(TimingTable::kMaxKeys);
  table.collect(&out);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->key < b->key; });
  return out;
}

TEST(TimingTable, AKeyKeepsItsEntryAndEachNewKeyGetsItsOwn) {
  TimingTable table;
  TimingTable::Entry* a = table.entryFor(allReduce(10));
  TimingTable::Entry* b = table.entryFor(allReduce(11));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(table.entryFor(allReduce(10)), a);
  EXPECT_EQ(b->key, allReduce(11));
  table.record(a, 30000);
  table.record(a, 31000);
  table.record(b, 50000);
  std::vector<const TimingTable::Entry*> e = collected(table);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0]->key.bucket, 10);
  EXPECT_EQ(e[0]->histogram.count(), 2u);
  EXPECT_EQ(e[1]->key.bucket, 11);
  EXPECT_EQ(e[1]->histogram.count(), 1u);
}

// Entries stay where they are while keys are added: the tracker's records point at them.
TEST(TimingTable, EntriesStayPutAsKeysAreAdded) {
  TimingTable table;
  TimingTable::Entry* first = table.entryFor(allReduce(0));
  for (uint8_t bucket = 1; bucket < 64; ++bucket) table.entryFor(allReduce(bucket, 2));
  EXPECT_EQ(table.entryFor(allReduce(0)), first);
  for (uint8_t bucket = 1; bucket < 64; ++bucket)
    EXPECT_EQ(table.entryFor(allReduce(bucket, 2))->key, allReduce(bucket, 2));
}

TEST(TimingTable, KeysPastTheLimitAreCountedAsDropped) {
  TimingTable table;
  for (size_t i = 0; i < TimingTable::kMaxKeys; ++i) {
    ASSERT_NE(table.entryFor(allReduce(static_cast<uint8_t>(i % 64), static_cast<uint8_t>(1 + i / 64))), nullptr) << i;
  }
  TimingTable::Entry* full = table.entryFor(allReduce(0, 9));
  EXPECT_EQ(full, nullptr);
  table.record(full, 1000);
  EXPECT_EQ(table.dropped(Drop::kTooManyKeys), 1u);
  TimingTable::Entry* old = table.entryFor(allReduce(5, 1));
  ASSERT_NE(old, nullptr) << "old keys are still found";
  table.record(old, uint64_t{1} << 62);
  EXPECT_EQ(table.dropped(Drop::kTimerWrapped), 1u);
  for (const TimingTable::Entry* entry : collected(table))
    EXPECT_EQ(entry->histogram.count(), 0u) << "dropped durations are counted in no histogram";
}

}  // namespace
}  // namespace nccl_roce::profiler

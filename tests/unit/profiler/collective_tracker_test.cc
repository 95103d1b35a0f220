// Timing collectives from NCCL's events as NCCL delivers them: the Coll event on the user's thread, then
// KernelCh start and stop per channel with GPU stamps, possibly after the Coll event stopped, and for
// graph-captured collectives once per replay. Every odd sequence is counted as dropped, never misattributed.
#include "profiler/collective_tracker.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kLL = 0;

CollectiveInfo allReduce(uint64_t bytes, int channels) { return {kAllReduce, bytes, kRing, kLL, channels}; }

CollectiveTracker tracker(uint32_t slots = 64) {
  CollectiveTracker::Config config;
  config.index = 3;
  config.firstGeneration = 1000;
  config.slots = slots;
  return CollectiveTracker(config);
}

// One round: every channel starts at `start + c` and stops at `stop - c`.
void runRound(CollectiveTracker& t, void* coll, int channels, uint64_t start, uint64_t stop) {
  std::vector<void*> handles;
  for (int c = 0; c < channels; ++c) handles.push_back(t.startChannel(coll, static_cast<uint32_t>(c), start + c));
  for (int c = 0; c < channels; ++c) t.stopChannel(handles[static_cast<size_t>(c)], stop - c);
}

uint64_t totalDropped(const CollectiveTracker& t) {
  uint64_t n = 0;
  for (int d = 0; d < kNumDrops; ++d) n += t.dropped(static_cast<Drop>(d));
  return n;
}

TEST(CollectiveTracker, ADurationRunsFromTheFirstChannelStartToTheLastStop) {
  CollectiveTracker t = tracker();
  void* group = t.startGroup();
  void* coll = t.startCollective(allReduce(65536, 2), group);
  ASSERT_NE(coll, nullptr);
  void* ch0 = t.startChannel(coll, 0, 1000);
  void* ch1 = t.startChannel(coll, 1, 1200);
  t.stopChannel(ch1, 45000);
  EXPECT_TRUE(t.entries().empty());  // one channel is still running
  t.stopChannel(ch0, 44000);
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].key.collective, kAllReduce);
  EXPECT_EQ(e[0].key.bucket, 16);  // 64 KiB
  EXPECT_EQ(e[0].key.algorithm, kRing);
  EXPECT_EQ(e[0].key.protocol, kLL);
  EXPECT_EQ(e[0].key.channels, 2);
  EXPECT_EQ(e[0].key.source, TimingSource::kKernelGpu);
  EXPECT_EQ(e[0].histogram.count(), 1u);
  EXPECT_EQ(e[0].histogram.minNs(), 44000u);  // 45000 - 1000
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, EveryReplayOfAGraphCapturedCollectiveIsTimed) {
  CollectiveTracker t = tracker(8);
  void* captured = t.startCollective(allReduce(4096, 1), t.startGroup());  // the Coll event fires at capture only
  runRound(t, captured, 1, 0, 20000);
  runRound(t, captured, 1, 100000, 121000);  // the second replay marks it as graph-captured
  for (int i = 0; i < 20; ++i) {  // eager collectives cycle through the other seven records
    void* eager = t.startCollective(allReduce(1 << 20, 1), t.startGroup());
    runRound(t, eager, 1, 0, 90000);
  }
  runRound(t, captured, 1, 500000, 522000);  // still timed after the ring went round
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].key.bucket, 12);
  EXPECT_EQ(e[0].histogram.count(), 3u);
  EXPECT_EQ(e[1].histogram.count(), 20u);
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, AnEventForARecycledRecordIsDroppedNotMisattributed) {
  CollectiveTracker t = tracker(4);
  void* old = t.startCollective(allReduce(1024, 1), t.startGroup());
  for (int i = 0; i < 4; ++i) t.startCollective(allReduce(1 << 30, 1), t.startGroup());  // reuses old's record
  EXPECT_EQ(t.startChannel(old, 0, 10), nullptr);
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 1u);
  EXPECT_TRUE(t.entries().empty());
}

TEST(CollectiveTracker, HandlesOfAnotherTrackerOrNotOursAreRejected) {
  CollectiveTracker a = tracker(), b = tracker();
  CollectiveTracker::Config other;
  other.index = 4;
  CollectiveTracker c(other);
  void* coll = c.startCollective(allReduce(1024, 1), c.startGroup());
  EXPECT_EQ(a.startChannel(coll, 0, 10), nullptr);  // tracker 4's collective offered to tracker 3
  int onTheStack = 0;
  EXPECT_EQ(a.startChannel(&onTheStack, 0, 10), nullptr);  // a real pointer is never one of our handles
  a.stopChannel(&onTheStack, 10);
  EXPECT_EQ(a.dropped(Drop::kMissingParent), 3u);
}

TEST(CollectiveTracker, KernelsOfCollectivesWeDoNotTimeAreIgnoredQuietly) {
  CollectiveTracker t = tracker();
  EXPECT_EQ(t.startCollective(CollectiveInfo{-1, 1024, kRing, kLL, 1}, t.startGroup()), nullptr);  // e.g. AllToAll
  EXPECT_EQ(t.startChannel(nullptr, 0, 10), nullptr);  // a send/receive kernel: NCCL gives no parent
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, OddSequencesAreCountedAsDropped) {
  CollectiveTracker t = tracker();
  void* coll = t.startCollective(allReduce(1024, 2), t.startGroup());
  void* ch0 = t.startChannel(coll, 0, 5000);
  t.stopChannel(ch0, 4000);  // stop before start
  EXPECT_EQ(t.dropped(Drop::kStopBeforeStart), 1u);
  t.stopChannel(ch0, 6000);  // that round was abandoned: the channel is no longer started
  EXPECT_EQ(t.dropped(Drop::kStopWithoutStart), 1u);
  EXPECT_EQ(t.startChannel(coll, 64, 1), nullptr);  // past the channels a round tracks
  EXPECT_EQ(t.dropped(Drop::kUnknownEvent), 1u);
  void* a = t.startChannel(coll, 1, 100);
  t.stopChannel(a, 200);
  t.startChannel(coll, 1, 300);  // channel 1 again while channel 0 never reported: a lost round
  EXPECT_EQ(t.dropped(Drop::kIncomplete), 1u);
  void* wrapped = t.startCollective(allReduce(1024, 1), t.startGroup());
  void* w = t.startChannel(wrapped, 0, 0);
  t.stopChannel(w, uint64_t{1} << 62);  // a duration of 146 years: a garbage stamp
  EXPECT_EQ(t.dropped(Drop::kTimerWrapped), 1u);
  EXPECT_TRUE(t.entries().empty());
}

TEST(CollectiveTracker, CollectivesSharingAKernelAreTimedAsABatch) {
  CollectiveTracker t = tracker();
  void* group = t.startGroup();
  void* first = t.startCollective(allReduce(1024, 1), group);
  void* second = t.startCollective(allReduce(8192, 1), group);
  void* alone = t.startCollective(allReduce(65536, 1), t.startGroup());
  runRound(t, first, 1, 0, 30000);
  runRound(t, second, 1, 0, 30000);  // the same kernel: the same stamps
  runRound(t, alone, 1, 0, 25000);
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 3u);
  for (const TimingTable::Entry& entry : e) {
    EXPECT_EQ(entry.key.source, entry.key.bucket == 16 ? TimingSource::kKernelGpu : TimingSource::kKernelGpuBatch)
        << static_cast<int>(entry.key.bucket);
  }
}

TEST(CollectiveTracker, HostTimedTrackersSayWhereTheirTimeCameFrom) {
  CollectiveTracker::Config config;
  config.source = TimingSource::kKernelHost;
  CollectiveTracker t(config);
  runRound(t, t.startCollective(allReduce(1024, 1), t.startGroup()), 1, 1000, 9000);
  ASSERT_EQ(t.entries().size(), 1u);
  EXPECT_EQ(t.entries()[0].key.source, TimingSource::kKernelHost);
  EXPECT_STREQ(timingSourceName(t.entries()[0].key.source), "kernel_host");
}

// NCCL's entry points call the inline try versions, which do the common case and, where the general version
// would make a call, give up having changed nothing; the entry point then calls the general version.
TEST(CollectiveTracker, TryVersionsDoTheCommonCaseAndLeaveTheRestToTheGeneralOnes) {
  CollectiveTracker t = tracker();
  uint64_t key = collectiveKey(allReduce(65536, 1));
  void* handle = &handle;
  EXPECT_FALSE(t.tryStartCollective(key, t.startGroup(), handle)) << "a new key: its histogram is allocated";
  EXPECT_EQ(handle, &handle) << "nothing done";
  void* first = t.startCollective(key, t.startGroup());
  void* group = t.startGroup();
  void* second = nullptr;
  ASSERT_TRUE(t.tryStartCollective(key, group, second));
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  void* third = &third;
  EXPECT_FALSE(t.tryStartCollective(key, group, third)) << "a second collective of one group: a batch";
  EXPECT_TRUE(t.tryStartCollective(0, group, third));
  EXPECT_EQ(third, nullptr) << "a collective that is not timed gets no handle";
  void* channel = nullptr;
  ASSERT_TRUE(t.tryStartChannel(second, 0, 1000, channel));
  EXPECT_TRUE(t.tryStopChannel(channel, 31000));
  void* orphan = &orphan;
  EXPECT_TRUE(t.tryStartChannel(&orphan, 0, 1000, orphan)) << "odd events are done (counted) by try versions";
  EXPECT_EQ(orphan, nullptr);
  EXPECT_TRUE(t.tryStopChannel(channel, 32000));
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 1u);
  EXPECT_EQ(t.dropped(Drop::kStopWithoutStart), 1u);
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].histogram.count(), 1u);
  EXPECT_EQ(e[0].histogram.minNs(), 30000u);
}

TEST(CollectiveTracker, TheTryVersionLeavesTheRecordOfAReplayedGraphInPlace) {
  CollectiveTracker t = tracker(4);
  uint64_t key = collectiveKey(allReduce(4096, 1));
  void* captured = t.startCollective(key, t.startGroup());
  runRound(t, captured, 1, 0, 20000);
  runRound(t, captured, 1, 100000, 120000);  // replayed: its record is kept
  int gaveUp = 0;
  for (int i = 0; i < 8; ++i) {
    void* h = nullptr;
    if (!t.tryStartCollective(key, t.startGroup(), h)) {
      ++gaveUp;
      h = t.startCollective(key, t.startGroup());
    }
    runRound(t, h, 1, 0, 30000);
  }
  EXPECT_EQ(gaveUp, 2) << "each time the ring came round to the kept record";
  runRound(t, captured, 1, 500000, 520000);
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].histogram.count(), 3u + 8u);
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, AHandleOfTheWrongKindIsDropped) {
  CollectiveTracker t = tracker();
  void* group = t.startGroup();
  void* coll = t.startCollective(allReduce(1024, 1), group);
  void* ch = t.startChannel(coll, 0, 100);
  EXPECT_EQ(t.startChannel(ch, 0, 100), nullptr);     // a channel is no collective's parent
  EXPECT_EQ(t.startChannel(group, 0, 100), nullptr);  // nor is a group
  t.stopChannel(coll, 200);                           // a collective's handle stops no channel
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 3u);
  t.stopChannel(ch, 200);
  ASSERT_EQ(t.entries().size(), 1u);
  EXPECT_EQ(t.entries()[0].histogram.count(), 1u);
}

TEST(CollectiveTracker, StatesItsMemory) {
  // 40 bytes per collective record; under 1 MiB for the default 16,384 before histograms (8 KiB per key).
  EXPECT_EQ(CollectiveTracker::bytesFor(2) - CollectiveTracker::bytesFor(1), 40u);
  EXPECT_LT(CollectiveTracker::bytesFor(16384), size_t{1} << 20);
}

}  // namespace
}  // namespace nccl_roce::profiler

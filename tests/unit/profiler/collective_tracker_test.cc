// Timing collectives from NCCL's events as NCCL delivers them: a Group event and its Coll events (on the user's
// thread, or CUDA's host-callback thread at every replay of a CUDA graph), then KernelCh start and stop per
// channel with GPU stamps, possibly after the Coll event stopped. Every odd sequence is counted as dropped,
// never misattributed.
#include "profiler/collective_tracker.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

constexpr int kAllReduce = 4, kRing = 1, kLL = 0;

// An all-reduce of `bytes` as NCCL's Coll event names it: ncclInt8 elements on Ring/LL.
CollEvent allReduce(uint64_t bytes, int channels, const void* group) {
  return CollEvent{"AllReduce", "ncclInt8", "RING", "LL", bytes, channels, group};
}

CollectiveTracker tracker(uint32_t slots = 64) {
  CollectiveTracker::Config config;
  config.index = 3;
  config.firstGeneration = 1000;
  config.slots = slots;
  return CollectiveTracker(config);
}

// One kernel of a collective: every channel starts at `start + c` and stops at `stop - c`.
void runKernel(CollectiveTracker& t, void* coll, int channels, uint64_t start, uint64_t stop) {
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
  void* coll = t.startCollective(allReduce(65536, 2, group));
  ASSERT_NE(coll, nullptr);
  void* ch0 = t.startChannel(coll, 0, 1000);
  void* ch1 = t.startChannel(coll, 1, 1200);
  t.stopChannel(ch1, 45000);
  EXPECT_TRUE(t.timings().keys.empty());  // one channel is still running
  t.stopChannel(ch0, 44000);
  std::vector<telemetry::KeyTimings> e = t.timings().keys;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].key.collective, kAllReduce);
  EXPECT_EQ(e[0].key.bucket, 16);  // 64 KiB
  EXPECT_EQ(e[0].key.choice.algorithm, kRing);
  EXPECT_EQ(e[0].key.choice.protocol, kLL);
  EXPECT_EQ(e[0].key.choice.channels, 2);
  EXPECT_EQ(e[0].key.choice.chunkSize, 0u);
  EXPECT_EQ(e[0].key.source, telemetry::TimingSource::kKernelGpu);
  EXPECT_EQ(e[0].histogram.count(), 1u);
  EXPECT_EQ(e[0].histogram.minNs(), 44000u);  // 45000 - 1000
  EXPECT_EQ(totalDropped(t), 0u);
}

// NCCL starts a graph's Group and Coll events again at every replay (its host node), with new handles, and the
// replay's kernel channels name the replay's own handle: each replay is one timed collective.
TEST(CollectiveTracker, EveryReplayOfAGraphIsTimedFromItsOwnCollEvent) {
  CollectiveTracker t = tracker(8);
  for (int replay = 0; replay < 50; ++replay) {
    void* coll = t.startCollective(allReduce(4096, 1, t.startGroup()));
    runKernel(t, coll, 1, 0, 20000 + static_cast<uint64_t>(replay));
  }
  std::vector<telemetry::KeyTimings> e = t.timings().keys;
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].histogram.count(), 50u);
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, AnEventForARecycledRecordIsDroppedNotMisattributed) {
  CollectiveTracker t = tracker(4);
  void* old = t.startCollective(allReduce(1024, 1, t.startGroup()));
  for (int i = 0; i < 4; ++i) t.startCollective(allReduce(1 << 30, 1, t.startGroup()));  // reuses old's record
  EXPECT_EQ(t.startChannel(old, 0, 10), nullptr);
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 1u);
  EXPECT_TRUE(t.timings().keys.empty());
}

TEST(CollectiveTracker, HandlesOfAnotherTrackerOrNotOursAreRejected) {
  CollectiveTracker a = tracker();
  CollectiveTracker::Config other;
  other.index = 4;
  CollectiveTracker c(other);
  void* coll = c.startCollective(allReduce(1024, 1, c.startGroup()));
  EXPECT_EQ(a.startChannel(coll, 0, 10), nullptr);  // tracker 4's collective offered to tracker 3
  int onTheStack = 0;
  EXPECT_EQ(a.startChannel(&onTheStack, 0, 10), nullptr);  // a real pointer is never one of our handles
  a.stopChannel(&onTheStack, 10);
  EXPECT_EQ(a.dropped(Drop::kMissingParent), 3u);
}

TEST(CollectiveTracker, KernelsOfCollectivesWeDoNotTimeAreIgnoredQuietly) {
  CollectiveTracker t = tracker();
  CollEvent allToAll{"AllToAll", "ncclFloat32", "RING", "SIMPLE", 1024, 1, t.startGroup()};
  EXPECT_EQ(t.startCollective(allToAll), nullptr);
  EXPECT_EQ(t.startChannel(nullptr, 0, 10), nullptr);  // a send/receive kernel: NCCL gives no parent
  EXPECT_EQ(totalDropped(t), 0u);
}

TEST(CollectiveTracker, OddSequencesAreCountedAsDropped) {
  CollectiveTracker t = tracker();
  void* coll = t.startCollective(allReduce(1024, 2, t.startGroup()));
  void* ch0 = t.startChannel(coll, 0, 5000);
  t.stopChannel(ch0, 4000);  // stop before start
  EXPECT_EQ(t.dropped(Drop::kStopBeforeStart), 1u);
  t.stopChannel(ch0, 6000);  // that round was abandoned: the channel is no longer started
  EXPECT_EQ(t.dropped(Drop::kStopWithoutStart), 1u);
  EXPECT_EQ(t.startChannel(coll, 64, 1), nullptr);  // past NCCL's 64 channels
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 1u);
  void* a = t.startChannel(coll, 1, 100);
  t.stopChannel(a, 200);
  t.stopChannel(a, 210);  // a channel stopped twice
  EXPECT_EQ(t.dropped(Drop::kStopWithoutStart), 2u);
  t.startChannel(coll, 1, 300);  // channel 1 again while channel 0 never reported: a lost round
  EXPECT_EQ(t.dropped(Drop::kIncomplete), 1u);
  void* wrapped = t.startCollective(allReduce(1024, 1, t.startGroup()));
  void* w = t.startChannel(wrapped, 0, 0);
  t.stopChannel(w, uint64_t{1} << 62);  // a duration of 146 years: a garbage stamp
  EXPECT_EQ(t.dropped(Drop::kTimerWrapped), 1u);
  EXPECT_EQ(t.dropped(Drop::kUnknownEvent), 0u) << "only event types we do not know count as unknown";
  EXPECT_TRUE(t.timings().keys.empty());
}

TEST(CollectiveTracker, CollectivesSharingAKernelAreTimedAsABatch) {
  CollectiveTracker t = tracker();
  void* group = t.startGroup();
  void* first = t.startCollective(allReduce(1024, 1, group));
  void* second = t.startCollective(allReduce(8192, 1, group));
  void* alone = t.startCollective(allReduce(65536, 1, t.startGroup()));
  runKernel(t, first, 1, 0, 30000);
  runKernel(t, second, 1, 0, 30000);  // the same kernel: the same stamps
  runKernel(t, alone, 1, 0, 25000);
  std::vector<telemetry::KeyTimings> e = t.timings().keys;
  ASSERT_EQ(e.size(), 3u);
  for (const telemetry::KeyTimings& entry : e) {
    EXPECT_EQ(entry.key.source,
              entry.key.bucket == 16 ? telemetry::TimingSource::kKernelGpu : telemetry::TimingSource::kKernelGpuBatch)
        << static_cast<int>(entry.key.bucket);
  }
}

TEST(CollectiveTracker, HostTimedTrackersSayWhereTheirTimeCameFrom) {
  CollectiveTracker::Config config;
  config.source = telemetry::TimingSource::kKernelHost;
  CollectiveTracker t(config);
  runKernel(t, t.startCollective(allReduce(1024, 1, t.startGroup())), 1, 1000, 9000);
  ASSERT_EQ(t.timings().keys.size(), 1u);
  EXPECT_EQ(t.timings().keys[0].key.source, telemetry::TimingSource::kKernelHost);
  EXPECT_STREQ(telemetry::timingSourceName(t.timings().keys[0].key.source), "kernel_host");
}

// AllGather and ReduceScatter are sized as the tuner counts them (x nRanks): NCCL's profiler events give one
// rank's count, and without nRanks (profiler v1-v3) they are not timed.
TEST(CollectiveTracker, AllGatherIsFiledUnderTheTunersBytes) {
  CollectiveTracker::Config config;
  config.nRanks = 8;
  CollectiveTracker t(config);
  runKernel(t, t.startCollective(CollEvent{"AllGather", "ncclFloat32", "RING", "SIMPLE", 1024, 1, nullptr}), 1, 0,
            9000);
  ASSERT_EQ(t.timings().keys.size(), 1u);
  EXPECT_EQ(t.timings().keys[0].key.bucket, 15) << "1024 x 4 bytes x 8 ranks = 32 KiB";
  CollectiveTracker unknownRanks = tracker();
  EXPECT_EQ(unknownRanks.startCollective(CollEvent{"AllGather", "ncclFloat32", "RING", "SIMPLE", 1024, 1, nullptr}),
            nullptr);
}

TEST(CollectiveTracker, AHandleOfTheWrongKindIsDropped) {
  CollectiveTracker t = tracker();
  void* group = t.startGroup();
  void* coll = t.startCollective(allReduce(1024, 1, group));
  void* ch = t.startChannel(coll, 0, 100);
  EXPECT_EQ(t.startChannel(ch, 0, 100), nullptr);     // a channel is no collective's parent
  EXPECT_EQ(t.startChannel(group, 0, 100), nullptr);  // nor is a group
  t.stopChannel(coll, 200);                           // a collective's handle stops no channel
  EXPECT_EQ(t.dropped(Drop::kMissingParent), 3u);
  t.stopChannel(ch, 200);
  ASSERT_EQ(t.timings().keys.size(), 1u);
  EXPECT_EQ(t.timings().keys[0].histogram.count(), 1u);
}

TEST(CollectiveTracker, StatesItsMemory) {
  // 48 bytes per collective record; under 1 MiB for the default 16,384 before keys (8 KiB each).
  EXPECT_EQ(CollectiveTracker::bytesFor(2) - CollectiveTracker::bytesFor(1), 48u);
  EXPECT_LT(CollectiveTracker::bytesFor(16384), size_t{1} << 20);
}

}  // namespace
}  // namespace nccl_roce::profiler

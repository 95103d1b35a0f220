// NCCL's proxy thread delivers kernel-channel events while the user's thread starts the next collectives:
// every collective is timed exactly once and nothing is dropped (run under TSan by scripts/sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {
namespace {

// As NCCL's entry points call the tracker: the inline try version, then the general one where it gives up
// (the other thread holding the lock, most often here).
void* startCollective(CollectiveTracker& t, uint64_t key, const void* group) {
  void* h = nullptr;
  return t.tryStartCollective(key, group, h) ? h : t.startCollective(key, group);
}
void* startChannel(CollectiveTracker& t, void* coll, uint32_t channel, uint64_t stampNs) {
  void* h = nullptr;
  return t.tryStartChannel(coll, channel, stampNs, h) ? h : t.startChannel(coll, channel, stampNs);
}
void stopChannel(CollectiveTracker& t, void* channel, uint64_t stampNs) {
  if (!t.tryStopChannel(channel, stampNs)) t.stopChannel(channel, stampNs);
}

TEST(TrackerConcurrency, TheProxyThreadTimesWhileTheUserThreadEnqueues) {
  CollectiveTracker::Config config;
  config.slots = 4096;
  CollectiveTracker t(config);
  constexpr int kCollectives = 20000, kChannels = 4;
  std::vector<std::atomic<void*>> handed(kCollectives);
  std::atomic<int> published{0}, timed{0};
  std::thread proxy([&] {
    for (int i = 0; i < kCollectives; ++i) {
      while (published.load(std::memory_order_acquire) <= i) std::this_thread::yield();
      void* coll = handed[static_cast<size_t>(i)].load();
      void* channels[kChannels];
      for (int c = 0; c < kChannels; ++c) channels[c] = startChannel(t, coll, static_cast<uint32_t>(c), 1000);
      for (int c = 0; c < kChannels; ++c) stopChannel(t, channels[c], 31000 + static_cast<uint64_t>(c));
      timed.store(i + 1, std::memory_order_release);
    }
  });
  for (int i = 0; i < kCollectives; ++i) {
    uint64_t key = collectiveKey({4, uint64_t{1} << (16 + i % 4), 1, 0, kChannels});  // four keys
    handed[static_cast<size_t>(i)].store(startCollective(t, key, t.startGroup()));
    published.store(i + 1, std::memory_order_release);
    // At most 1000 collectives ahead of the kernels, as NCCL's queues bound it: no record is reused early.
    while (i - timed.load(std::memory_order_acquire) > 1000) std::this_thread::yield();
  }
  proxy.join();
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 4u);
  for (const TimingTable::Entry& entry : e) {
    EXPECT_EQ(entry.histogram.count(), static_cast<uint64_t>(kCollectives / 4));
    EXPECT_EQ(entry.histogram.maxNs(), 30003u);
  }
  for (int d = 0; d < kNumDrops; ++d) EXPECT_EQ(t.dropped(static_cast<Drop>(d)), 0u) << dropName(static_cast<Drop>(d));
}

}  // namespace
}  // namespace nccl_roce::profiler

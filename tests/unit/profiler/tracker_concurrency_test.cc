// NCCL's proxy thread delivers kernel-channel events while the user's thread starts the next collectives:
// every collective is timed exactly once and nothing is dropped (run under TSan by scripts/sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {
namespace {

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
      for (int c = 0; c < kChannels; ++c) channels[c] = t.startChannel(coll, static_cast<uint32_t>(c), 1000);
      for (int c = 0; c < kChannels; ++c) t.stopChannel(channels[c], 31000 + static_cast<uint64_t>(c));
      timed.store(i + 1, std::memory_order_release);
    }
  });
  for (int i = 0; i < kCollectives; ++i) {
    handed[static_cast<size_t>(i)].store(t.startCollective({4, 1 << 16, 1, 0, kChannels}, t.startGroup()));
    published.store(i + 1, std::memory_order_release);
    // At most 1000 collectives ahead of the kernels, as NCCL's queues bound it: no record is reused early.
    while (i - timed.load(std::memory_order_acquire) > 1000) std::this_thread::yield();
  }
  proxy.join();
  std::vector<TimingTable::Entry> e = t.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].histogram.count(), static_cast<uint64_t>(kCollectives));
  for (int d = 0; d < kNumDrops; ++d) EXPECT_EQ(t.dropped(static_cast<Drop>(d)), 0u) << dropName(static_cast<Drop>(d));
  EXPECT_EQ(e[0].histogram.maxNs(), 30003u);
}

}  // namespace
}  // namespace nccl_roce::profiler

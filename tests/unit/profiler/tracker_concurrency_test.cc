// The threads NCCL really uses for one communicator, at once: Group and Coll events from the user's thread
// (eager collectives) and from CUDA's host-callback thread (a graph's replays, which NCCL does not serialise with
// eager launches when NCCL_GRAPH_MIXING_SUPPORT=0), KernelCh events from the proxy thread, and snapshots from the
// metrics writer. Every collective is timed exactly once, under its own key, and nothing is dropped (run under
// TSan by scripts/sanitizers.sh, label concurrency).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {
namespace {

constexpr int kPerThread = 10000, kChannels = 4;

// What the threads that launch collectives hand the proxy thread: the Coll handles, in order. At most 1000
// collectives are in flight (started, not yet timed), as NCCL's queues bound it, so no record is reused before
// its kernel reported.
class Launches {
 public:
  void beforeStart() {
    while (started_.load() - timed_.load() > 1000) std::this_thread::yield();
    started_.fetch_add(1);
  }
  void push(void* coll) {
    std::lock_guard<std::mutex> lock(mutex_);
    handles_.push_back(coll);
  }
  std::vector<void*> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(handles_, {});
  }
  void timed() { timed_.fetch_add(1); }

 private:
  std::mutex mutex_;
  std::vector<void*> handles_;
  std::atomic<int> started_{0}, timed_{0};
};

TEST(TrackerConcurrency, EagerAndReplayedCollectivesAreTimedWhileTheProxyAndTheWriterRun) {
  CollectiveTracker::Config config;
  config.slots = 4096;
  CollectiveTracker t(config);
  Launches launched;
  std::atomic<int> launchersDone{0};
  // The user's thread launches 64 KiB all-reduces on LL, CUDA's callback thread a graph's 1 MiB ones on SIMPLE,
  // each in its own Group event (one plan per collective, as NCCL makes them outside ncclGroupStart).
  auto launcher = [&](uint64_t bytes, const char* proto) {
    for (int i = 0; i < kPerThread; ++i) {
      launched.beforeStart();
      void* group = t.startGroup();
      launched.push(t.startCollective(CollEvent{"AllReduce", "ncclInt8", "RING", proto, bytes, kChannels, group}));
    }
    launchersDone.fetch_add(1);
  };
  std::thread user(launcher, uint64_t{1} << 16, "LL");
  std::thread hostCallback(launcher, uint64_t{1} << 20, "SIMPLE");
  std::atomic<bool> proxyDone{false};
  std::thread proxy([&] {
    for (;;) {
      bool last = launchersDone.load() == 2;
      for (void* coll : launched.take()) {
        void* channels[kChannels];
        for (int c = 0; c < kChannels; ++c) channels[c] = t.startChannel(coll, static_cast<uint32_t>(c), 1000);
        for (int c = 0; c < kChannels; ++c) t.stopChannel(channels[c], 31000 + static_cast<uint64_t>(c));
        launched.timed();
      }
      if (last) break;
      std::this_thread::yield();
    }
    proxyDone.store(true);
  });
  std::thread writer([&] {
    while (!proxyDone.load()) {
      for (const telemetry::KeyTimings& e : t.timings().keys) ASSERT_LE(e.histogram.count(), uint64_t{kPerThread});
      std::this_thread::yield();
    }
  });
  user.join();
  hostCallback.join();
  proxy.join();
  writer.join();
  std::vector<telemetry::KeyTimings> e = t.timings().keys;
  ASSERT_EQ(e.size(), 2u);
  for (const telemetry::KeyTimings& entry : e) {
    EXPECT_EQ(entry.key.source, telemetry::TimingSource::kKernelGpu)
        << "no collective was taken for part of another's batch";
    EXPECT_EQ(entry.histogram.count(), uint64_t{kPerThread});
    EXPECT_EQ(entry.histogram.maxNs(), 30003u);
  }
  for (int d = 0; d < kNumDrops; ++d) EXPECT_EQ(t.dropped(static_cast<Drop>(d)), 0u) << dropName(static_cast<Drop>(d));
}

// A snapshot copies one key at a time under the lock: keys made while it runs (the table's first sight of a size)
// are either in it whole or not yet, and every histogram it copies is one the proxy thread wrote under the lock.
TEST(TrackerConcurrency, SnapshotsCopyKeysOneAtATimeWhileNewKeysAppear) {
  CollectiveTracker t(CollectiveTracker::Config{});
  constexpr int kKeys = 128, kRounds = 20;
  std::atomic<bool> done{false};
  std::thread proxy([&] {
    uint64_t stamp = 1000;
    for (int round = 0; round < kRounds; ++round) {
      for (int k = 0; k < kKeys; ++k) {
        void* coll = t.startCollective(
            {"AllReduce", "ncclInt8", "RING", k % 2 ? "LL" : "SIMPLE", uint64_t{1} << (k / 2), 1, nullptr});
        t.stopChannel(t.startChannel(coll, 0, stamp), stamp + 5000);
        stamp += 10000;
      }
    }
    done = true;
  });
  size_t seen = 0;
  while (!done.load()) {
    telemetry::Timings snapshot = t.timings();
    ASSERT_LE(snapshot.keys.size(), static_cast<size_t>(kKeys));
    for (size_t i = 1; i < snapshot.keys.size(); ++i) ASSERT_LT(snapshot.keys[i - 1].key, snapshot.keys[i].key);
    for (const telemetry::KeyTimings& k : snapshot.keys) ASSERT_LE(k.histogram.count(), uint64_t{kRounds});
    seen = std::max(seen, snapshot.keys.size());
  }
  proxy.join();
  telemetry::Timings last = t.timings();
  ASSERT_EQ(last.keys.size(), static_cast<size_t>(kKeys));
  for (const telemetry::KeyTimings& k : last.keys) EXPECT_EQ(k.histogram.count(), uint64_t{kRounds});
}

// A switchback while NCCL captures graphs: the capturing thread makes capture slots (and, every 1,024 of them, a
// chunk, outside the lock) while CUDA's callback thread replays what was captured, the proxy thread times the
// replays and the statistics writer copies the slots. Every replay is timed once, under its captured collective.
TEST(TrackerConcurrency, CapturesReplaysAndSnapshotsRunAtOnceInASwitchback) {
  CollectiveTracker::Config config;
  config.slots = 4096;
  config.seesCaptures = true;
  CollectiveTracker t(config);
  auto arms = std::make_shared<telemetry::ArmMap>();
  arms->note(4, 16, 1, 0, 0, 0);  // 64 KiB all-reduces: Ring/LL the control's
  auto calls = std::make_shared<telemetry::CountedCalls>();
  auto plan = std::make_shared<telemetry::SwitchbackPlan>();
  plan->arms = {"control", "candidate"};
  plan->block = 4;
  plan->washout = 0;
  plan->window = 64;
  plan->turnsPerRound = 2;
  plan->armMap = arms;
  plan->calls = calls;
  t.enableSwitchback(plan);
  constexpr int kCaptures = 3000, kReplays = 20000;
  std::vector<void*> captured(kCaptures);
  std::atomic<int> ready{0};
  std::thread capturing([&] {
    for (int i = 0; i < kCaptures; ++i) {
      calls->store(static_cast<uint64_t>(i));
      captured[static_cast<size_t>(i)] = t.startCapture({"AllReduce", "ncclInt8", uint64_t{1} << 16});
      ready.store(i + 1, std::memory_order_release);
    }
  });
  Launches launched;
  std::atomic<bool> replaysDone{false}, proxyDone{false};
  std::thread hostCallback([&] {
    for (int i = 0; i < kReplays; ++i) {
      while (ready.load(std::memory_order_acquire) == 0) std::this_thread::yield();
      void* parent = captured[static_cast<size_t>(i % ready.load(std::memory_order_acquire))];
      launched.beforeStart();
      launched.push(t.startCollective(
          CollEvent{"AllReduce", "ncclInt8", "RING", "LL", uint64_t{1} << 16, 1, t.startGroup(), parent}));
    }
    replaysDone.store(true);
  });
  std::thread proxy([&] {
    for (;;) {
      bool last = replaysDone.load();
      for (void* coll : launched.take()) {
        t.stopChannel(t.startChannel(coll, 0, 1000), 31000);
        launched.timed();
      }
      if (last) break;
      std::this_thread::yield();
    }
    proxyDone.store(true);
  });
  std::thread writer([&] {
    while (!proxyDone.load()) {
      std::optional<telemetry::SwitchbackTimings> sb = t.timings().switchback;
      ASSERT_TRUE(sb.has_value());
      uint64_t timed = 0;
      for (const telemetry::CapturedTurn& turn : sb->turns) timed += turn.count;
      ASSERT_LE(timed, uint64_t{kReplays});
      std::this_thread::yield();
    }
  });
  capturing.join();
  hostCallback.join();
  proxy.join();
  writer.join();
  telemetry::SwitchbackTimings sb = *t.timings().switchback;
  EXPECT_EQ(sb.captured, uint64_t{kCaptures});
  uint64_t timed = 0;
  for (const telemetry::CapturedTurn& turn : sb.turns) timed += turn.count;
  EXPECT_EQ(timed, uint64_t{kReplays}) << "every replay timed once, for its captured collective";
  EXPECT_TRUE(sb.cells.empty()) << "no replay in a window";
  for (int d = 0; d < kNumDrops; ++d) EXPECT_EQ(t.dropped(static_cast<Drop>(d)), 0u) << dropName(static_cast<Drop>(d));
}

}  // namespace
}  // namespace nccl_roce::profiler

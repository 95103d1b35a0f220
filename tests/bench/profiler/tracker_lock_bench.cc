// How long NCCL's proxy thread can wait for the tracker's lock while the statistics checkpoint or the metrics writer
// takes a snapshot of a communicator with the most keys a tracker holds (128, each an 8 KiB histogram): the
// snapshot holds the lock for one histogram's copy at a time (profiler/collective_tracker.h), so a channel event
// waits at most that long. For docs/performance.md ("The profiler's lock"):
//   tracker_lock_bench [SECONDS]
// prints what one hold of the lock costs now (one key's copy under the tracker's kind of lock, as timings() takes
// it) and what it cost when a snapshot copied every histogram under it (one whole 128-key snapshot), and, for the
// proxy thread's channel events (a start and a stop per collective), their latency without snapshots and while a
// second thread takes a snapshot every millisecond (checkpoints come every 10 s at the most). Latencies on a
// shared machine include its scheduling: compare the quiet and the busy rows.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "common/spin_lock.h"
#include "profiler/collective_tracker.h"
#include "telemetry/timings.h"

namespace {

using Clock = std::chrono::steady_clock;
using nccl_roce::profiler::CollectiveTracker;

constexpr int kKeys = 128;

// 128 keys: 64 size buckets x 2 protocols of all-reduce on one channel, each timed once.
void fillKeys(CollectiveTracker& t) {
  for (int k = 0; k < kKeys; ++k) {
    uint64_t count = uint64_t{1} << (k / 2);
    void* coll = t.startCollective({"AllReduce", "ncclInt8", "RING", k % 2 ? "LL" : "SIMPLE", count, 1, nullptr});
    t.stopChannel(t.startChannel(coll, 0, 1000), 2000 + static_cast<uint64_t>(k));
  }
}

struct Latencies {
  double p50 = 0, p999 = 0, max = 0;  // nanoseconds
};

// The proxy thread's channel events for `seconds`: one collective's start and stop, timed together.
Latencies proxyEvents(CollectiveTracker& t, double seconds) {
  std::vector<double> ns;
  ns.reserve(1 << 22);
  auto end = Clock::now() + std::chrono::duration<double>(seconds);
  uint64_t stamp = 1'000'000;
  while (Clock::now() < end && ns.size() < ns.capacity()) {
    void* coll = t.startCollective({"AllReduce", "ncclInt8", "RING", "LL", 16384, 1, nullptr});
    auto start = Clock::now();
    void* ch = t.startChannel(coll, 0, stamp);
    t.stopChannel(ch, stamp + 40000);
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
    stamp += 50000;
  }
  std::sort(ns.begin(), ns.end());
  return {ns[ns.size() / 2], ns[ns.size() * 999 / 1000], ns.back()};
}

// One hold as timings() takes it: lock, copy one key and its 8 KiB histogram, unlock. Nanoseconds.
Latencies oneKeyHolds(const nccl_roce::telemetry::KeyTimings& source, int rounds) {
  nccl_roce::SpinLock lock;
  nccl_roce::telemetry::KeyTimings copy;
  std::vector<double> ns;
  for (int i = 0; i < rounds; ++i) {
    auto start = Clock::now();
    {
      std::lock_guard<nccl_roce::SpinLock> held(lock);
      copy.key = source.key;
      copy.histogram = source.histogram;
    }
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
  }
  std::sort(ns.begin(), ns.end());
  return {ns[ns.size() / 2], ns[ns.size() * 999 / 1000], ns.back()};
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  CollectiveTracker tracker(CollectiveTracker::Config{});
  fillKeys(tracker);
  if (tracker.timings().keys.size() != kKeys) {
    std::fprintf(stderr, "expected %d keys\n", kKeys);
    return 1;
  }
  Latencies hold = oneKeyHolds(tracker.timings().keys[0], 100000);
  Latencies quiet = proxyEvents(tracker, seconds);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> snapshots{0};
  double longestSnapshotUs = 0, totalSnapshotUs = 0;
  std::thread writer([&] {
    while (!stop.load()) {
      auto start = Clock::now();
      volatile size_t keys = tracker.timings().keys.size();
      (void)keys;
      double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
      longestSnapshotUs = std::max(longestSnapshotUs, us);
      totalSnapshotUs += us;
      snapshots.fetch_add(1);
      std::this_thread::sleep_until(start + std::chrono::milliseconds(1));
    }
  });
  Latencies busy = proxyEvents(tracker, seconds);
  stop = true;
  writer.join();
  std::printf("one hold of the lock (one key's copy), ns: p50 %.0f p99.9 %.0f max %.0f\n", hold.p50, hold.p999,
              hold.max);
  std::printf("proxy channel events (start + stop), ns: quiet p50 %.0f p99.9 %.0f max %.0f\n", quiet.p50, quiet.p999,
              quiet.max);
  std::printf(
      "proxy channel events (start + stop), ns: during a 128-key snapshot every ms p50 %.0f p99.9 %.0f max %.0f\n",
      busy.p50, busy.p999, busy.max);
  std::printf("one whole 128-key snapshot (the old hold), us: mean %.1f longest %.1f (%llu snapshots)\n",
              totalSnapshotUs / static_cast<double>(snapshots.load()), longestSnapshotUs,
              static_cast<unsigned long long>(snapshots.load()));
  return 0;
}

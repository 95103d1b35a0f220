// One communicator's collective durations: per TimingKey a LogHistogram (8 KiB, allocated when the key first
// appears, never again), at most kMaxKeys keys, and counts of events that could not be used. Not locked: the
// tracker that owns it serialises access.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/timing_key.h"
#include "stats/log_histogram.h"

namespace nccl_roce::profiler {

enum class Drop : uint8_t {
  kUnknownEvent,      // an event type or channel we do not time
  kMissingParent,     // a kernel channel whose collective we do not hold (never started, or long recycled)
  kStopWithoutStart,  // a channel stopped that had not started
  kStopBeforeStart,   // a stop stamp earlier than the start
  kTimerWrapped,      // a duration past the histogram's range (about 77 s): a wrapped or garbage stamp
  kTooManyKeys,       // more distinct keys than the table holds
  kIncomplete,        // a kernel whose channels did not all report before the next one started
};
constexpr int kNumDrops = 7;
const char* dropName(Drop drop);  // "unknown_event", ... as in the statistics file

class TimingTable {
 public:
  static constexpr int kMaxKeys = 128;  // 1 MiB of histograms at most

  // The histogram of `key`, allocated when the key first appears (the only allocation) and kept as long as the
  // table; nullptr once kMaxKeys keys exist. Keys whose histogram stays empty are not listed by entries().
  stats::LogHistogram* histogramFor(const TimingKey& key);
  // Records one duration into a histogram of this table (nullptr: too many keys). False when it was dropped.
  // Inline: once per collective.
  bool record(stats::LogHistogram* histogram, uint64_t durationNs) {
    if (durationNs > largestNs_) {
      drop(Drop::kTimerWrapped);
      return false;
    }
    if (histogram == nullptr) {
      drop(Drop::kTooManyKeys);
      return false;
    }
    histogram->record(durationNs);
    return true;
  }
  bool record(const TimingKey& key, uint64_t durationNs) { return record(histogramFor(key), durationNs); }
  void drop(Drop why, uint64_t count = 1) { drops_[static_cast<size_t>(why)] += count; }

  struct Entry {
    TimingKey key;
    stats::LogHistogram histogram;
  };
  std::vector<Entry> entries() const;  // copies, in key order
  uint64_t dropped(Drop why) const { return drops_[static_cast<size_t>(why)]; }

 private:
  struct Slot {
    uint64_t packed = 0;
    TimingKey key;
    std::unique_ptr<stats::LogHistogram> histogram;
  };
  // Open addressing over the packed keys: slot number + 1, 0 for empty; twice the keys, so probes stay short.
  static constexpr size_t kIndexSize = 2 * kMaxKeys;
  std::array<uint8_t, kIndexSize> index_{};
  std::array<Slot, kMaxKeys> slots_;
  int used_ = 0;
  std::array<uint64_t, kNumDrops> drops_{};
  uint64_t largestNs_ = static_cast<uint64_t>(stats::LogHistogram::largestNs());  // the histogram's range
};

}  // namespace nccl_roce::profiler

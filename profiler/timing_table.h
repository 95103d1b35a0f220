// One communicator's collective durations: per TimingKey a LogHistogram (8 KiB, allocated when the key first
// appears, never again), at most kMaxKeys keys, and counts of events that could not be used. Not locked: the
// tracker that owns it serialises access, except to the keys, which only the user's thread adds (indexOf) and
// finds (find).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/inline.h"
#include "profiler/timing_key.h"
#include "profiler/log_histogram.h"

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
  static constexpr uint8_t kNoKey = 0xff;  // indexOf() once kMaxKeys keys exist

  // The index of a key (TimingKey::packed()) in this table, its histogram allocated when the key first appears
  // (the only allocation) and kept as long as the table; kNoKey once kMaxKeys keys exist. Keys whose histogram
  // stays empty are not listed by entries().
  uint8_t indexOf(uint64_t packed);
  // The same for a key seen before, kNoKey for a new one. Inline, since it runs once per collective: nearly
  // always one hash and the first probe.
  NCCL_ROCE_ALWAYS_INLINE uint8_t find(uint64_t packed) const {
    for (size_t at = hashOf(packed);; at = (at + 1) % kIndexSize) {
      uint8_t index = index_[at];
      if (index == kNoKey || packed_[index] == packed) return index;
    }
  }
  uint64_t packedAt(uint8_t index) const { return packed_[index]; }  // index < kMaxKeys

  // Records one duration for the key at `index` (kNoKey: dropped as too many keys). False when it was dropped.
  // Inline: once per collective.
  NCCL_ROCE_ALWAYS_INLINE bool record(uint8_t index, uint64_t durationNs) {
    if (durationNs > bins_->largest()) {
      drop(Drop::kTimerWrapped);
      return false;
    }
    if (index >= kMaxKeys) {
      drop(Drop::kTooManyKeys);
      return false;
    }
    histograms_[index]->recordInRange(durationNs, *bins_);
    return true;
  }
  bool record(const TimingKey& key, uint64_t durationNs) { return record(indexOf(key.packed()), durationNs); }
  void drop(Drop why, uint64_t count = 1) { drops_[static_cast<size_t>(why)] += count; }

  struct Entry {
    TimingKey key;
    profiler::LogHistogram histogram;
  };
  std::vector<Entry> entries() const;  // copies, in key order
  uint64_t dropped(Drop why) const { return drops_[static_cast<size_t>(why)]; }

 private:
  // Open addressing over the packed keys: their index, kNoKey for empty; twice the keys, so probes stay short.
  static constexpr size_t kIndexSize = 2 * kMaxKeys;
  static std::array<uint8_t, kIndexSize> emptyIndex() {
    std::array<uint8_t, kIndexSize> index;
    index.fill(kNoKey);
    return index;
  }
  static size_t hashOf(uint64_t packed) { return static_cast<size_t>((packed * 0x9e3779b97f4a7c15ull) >> 56) % kIndexSize; }

  std::array<uint8_t, kIndexSize> index_ = emptyIndex();
  std::array<uint64_t, kMaxKeys> packed_{};
  std::array<std::unique_ptr<profiler::LogHistogram>, kMaxKeys> histograms_;
  int used_ = 0;
  std::array<uint64_t, kNumDrops> drops_{};
  const detail::BinMap* bins_ = &detail::binMap();  // kept, so recording skips its first-use check
};

}  // namespace nccl_roce::profiler

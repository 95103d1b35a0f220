// One communicator's collective durations: per key (telemetry::CellKey, the decision counts' key with its timing
// source) a LogHistogram, made when the key first appears (its 8 KiB the only allocation), at most kMaxKeys
// keys; and counts of events that could not be used. Not locked: the tracker that owns it locks for it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/flat_map.h"
#include "telemetry/cell_key.h"
#include "telemetry/log_histogram.h"
#include "telemetry/timings.h"

namespace nccl_roce::profiler {

using telemetry::CellKey;
using telemetry::TimingSource;

using telemetry::Drop;
using telemetry::kNumDrops;

class TimingTable {
 public:
  static constexpr size_t kMaxKeys = 128;  // 1 MiB of histograms at most

  TimingTable();

  struct Entry {
    telemetry::CellKey key;
    telemetry::LogHistogram histogram;
  };
  // The entry of `key`, made when the key first appears and kept as long as the table; nullptr once kMaxKeys
  // keys exist (or memory ran out).
  Entry* entryFor(const telemetry::CellKey& key);
  // One duration for `entry` (nullptr: dropped as too many keys); past the histogram's range, dropped as a
  // wrapped timer. The histogram bin it was counted in; -1 when dropped.
  int record(Entry* entry, uint64_t durationNs);
  void drop(Drop why, uint64_t count = 1) { drops_[static_cast<size_t>(why)] += count; }

  // Each entry's address, appended to *out up to its capacity (no allocation: the tracker copies the entries one
  // at a time, outside the lock that guards them all); they stay valid as long as the table.
  void collect(std::vector<const Entry*>* out) const;
  uint64_t dropped(Drop why) const { return drops_[static_cast<size_t>(why)]; }
  const std::array<uint64_t, kNumDrops>& drops() const { return drops_; }

 private:
  FlatMap<telemetry::CellKey, std::unique_ptr<Entry>, telemetry::CellKeyHash> entries_;
  std::array<uint64_t, kNumDrops> drops_{};
};

}  // namespace nccl_roce::profiler

#include "profiler/timing_table.h"

#include <algorithm>
#include <new>

namespace nccl_roce::profiler {

const char* dropName(Drop drop) {
  switch (drop) {
    case Drop::kUnknownEvent: return "unknown_event";
    case Drop::kMissingParent: return "missing_parent";
    case Drop::kStopWithoutStart: return "stop_without_start";
    case Drop::kStopBeforeStart: return "stop_before_start";
    case Drop::kTimerWrapped: return "timer_wrapped";
    case Drop::kTooManyKeys: return "too_many_keys";
    case Drop::kIncomplete: break;
  }
  return "incomplete";
}

stats::LogHistogram* TimingTable::histogramFor(const TimingKey& key) {
  uint64_t packed = key.packed();
  size_t at = static_cast<size_t>((packed * 0x9e3779b97f4a7c15ull) >> 56) % kIndexSize;
  for (; index_[at] != 0; at = (at + 1) % kIndexSize) {
    Slot& slot = slots_[index_[at] - 1u];
    if (slot.packed == packed) return slot.histogram.get();
  }
  if (used_ == kMaxKeys) return nullptr;
  Slot& slot = slots_[static_cast<size_t>(used_)];
  slot.histogram.reset(new (std::nothrow) stats::LogHistogram());
  if (!slot.histogram) return nullptr;
  slot.packed = packed;
  slot.key = key;
  index_[at] = static_cast<uint8_t>(++used_);
  return slot.histogram.get();
}

std::vector<TimingTable::Entry> TimingTable::entries() const {
  std::vector<Entry> out;
  for (int i = 0; i < used_; ++i) {
    const Slot& slot = slots_[static_cast<size_t>(i)];
    if (slot.histogram->count() != 0) out.push_back({slot.key, *slot.histogram});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.key.packed() < b.key.packed(); });
  return out;
}

}  // namespace nccl_roce::profiler

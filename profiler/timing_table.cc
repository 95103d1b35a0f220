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

uint8_t TimingTable::indexOf(uint64_t packed) {
  size_t at = hashOf(packed);
  for (; index_[at] != kNoKey; at = (at + 1) % kIndexSize) {
    if (packed_[index_[at]] == packed) return index_[at];
  }
  if (used_ == kMaxKeys) return kNoKey;
  auto index = static_cast<size_t>(used_);
  histograms_[index].reset(new (std::nothrow) profiler::LogHistogram());
  if (!histograms_[index]) return kNoKey;
  packed_[index] = packed;
  index_[at] = static_cast<uint8_t>(index);
  ++used_;
  return static_cast<uint8_t>(index);
}

std::vector<TimingTable::Entry> TimingTable::entries() const {
  std::vector<Entry> out;
  for (size_t i = 0; i < static_cast<size_t>(used_); ++i) {
    if (histograms_[i]->count() != 0) out.push_back({TimingKey::unpack(packed_[i]), *histograms_[i]});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.key.packed() < b.key.packed(); });
  return out;
}

}  // namespace nccl_roce::profiler

#include "profiler/timing_table.h"

#include <new>

namespace nccl_roce::profiler {

// Room for every key up front, so adding one on NCCL's threads never rehashes.
TimingTable::TimingTable() {
  entries_.reserve(kMaxKeys);
}

TimingTable::Entry* TimingTable::entryFor(const telemetry::CellKey& key) {
  auto found = entries_.find(key);
  if (found != entries_.end()) return found->second.get();
  if (entries_.size() == kMaxKeys) return nullptr;
  std::unique_ptr<Entry> entry(new (std::nothrow) Entry{key, {}});
  if (!entry) return nullptr;
  return entries_.emplace(key, std::move(entry)).first->second.get();
}

int TimingTable::record(Entry* entry, uint64_t durationNs) {
  if (durationNs > telemetry::LogHistogram::largestNs()) {
    drop(Drop::kTimerWrapped);
    return -1;
  }
  if (entry == nullptr) {
    drop(Drop::kTooManyKeys);
    return -1;
  }
  return entry->histogram.record(durationNs);
}

void TimingTable::collect(std::vector<const Entry*>* out) const {
  for (const auto& [key, entry] : entries_) {
    if (out->size() == out->capacity()) return;
    out->push_back(entry.get());
  }
}

}  // namespace nccl_roce::profiler

#include "profiler/tracker_registry.h"

#include <new>
#include <thread>

namespace nccl_roce::profiler {

std::shared_ptr<CollectiveTracker> TrackerRegistry::add(CollectiveTracker::Config config) {
  for (uint32_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!slots_[i].taken.compare_exchange_strong(expected, true)) continue;
    config.index = i;
    // Far apart per tracker, so a handle from a slot's previous tracker never matches a record of its next one.
    config.firstGeneration = (nextGeneration_.fetch_add(1) * 0x9E3779u) & EventHandle::kGenerationMask;
    std::shared_ptr<CollectiveTracker> tracker;
    try {
      tracker = std::make_shared<CollectiveTracker>(config);
    } catch (...) {
      slots_[i].taken.store(false);
      return nullptr;
    }
    slots_[i].tracker.store(tracker.get());
    return tracker;
  }
  return nullptr;
}

void TrackerRegistry::remove(const std::shared_ptr<CollectiveTracker>& tracker) {
  if (!tracker) return;
  Slot& slot = slots_[tracker->index() % kSlots];
  if (slot.tracker.load() != tracker.get()) return;
  slot.tracker.store(nullptr);
  while (slot.users.load() != 0) std::this_thread::yield();  // events already inside finish first
  slot.taken.store(false);
}

}  // namespace nccl_roce::profiler

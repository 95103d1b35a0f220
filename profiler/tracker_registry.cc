#include "profiler/tracker_registry.h"

namespace nccl_roce::profiler {

std::shared_ptr<CollectiveTracker> TrackerRegistry::add(CollectiveTracker::Config config) {
  uint32_t index = kSlots;
  {
    std::lock_guard<SpinLock> lock(addLock_);
    for (uint32_t i = 0; i < kSlots && index == kSlots; ++i) {
      if (!taken_[i]) index = i;
    }
    if (index == kSlots) return nullptr;
    taken_[index] = true;
    config.index = index;
    config.firstGeneration = (++trackersMade_ * kGenerationsPerTracker) & EventHandle::kGenerationMask;
  }
  std::shared_ptr<CollectiveTracker> tracker;
  try {
    tracker = std::make_shared<CollectiveTracker>(config);  // its ring: not under a lock
  } catch (...) {
    std::lock_guard<SpinLock> lock(addLock_);
    taken_[index] = false;
    throw;
  }
  std::lock_guard<SpinLock> lock(slots_[index].lock);
  slots_[index].tracker = tracker.get();
  return tracker;
}

void TrackerRegistry::remove(const std::shared_ptr<CollectiveTracker>& tracker) {
  if (!tracker) return;
  uint32_t i = tracker->index() % kSlots;
  {
    std::lock_guard<SpinLock> slotLock(slots_[i].lock);  // waits for an event inside to leave
    if (slots_[i].tracker != tracker.get()) return;
    slots_[i].tracker = nullptr;
  }
  std::lock_guard<SpinLock> lock(addLock_);
  taken_[i] = false;
}

}  // namespace nccl_roce::profiler

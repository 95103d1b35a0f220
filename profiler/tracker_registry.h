// The live communicators' trackers of one process, by the number their handles carry. NCCL gives stopEvent and
// recordEventState only the event handle, so the handle names the tracker and this finds it.
//
// Lifetime: NCCL destroys a communicator's proxy before it finalizes the profiler context, but a proxy thread
// shared between communicators, or a late event with a stale handle, can still name a tracker that is being
// removed. Each slot has a lock that an event holds while it is inside the slot's tracker; remove() empties the
// slot under it, so once remove() returns no event is inside and none can reach the tracker. A handle of a
// removed tracker finds an empty slot (or a newer tracker whose generations differ) and is dropped.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "common/spin_lock.h"
#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {

class TrackerRegistry {
 public:
  // A new tracker in a free slot, its index and first generation set here; nullptr when every slot is taken.
  std::shared_ptr<CollectiveTracker> add(CollectiveTracker::Config config);
  void remove(const std::shared_ptr<CollectiveTracker>& tracker);

  // Runs f(tracker) with the tracker named by `index`, which cannot be removed meanwhile; false when the slot
  // is empty.
  template <typename F>
  bool with(uint32_t index, F&& f) {
    Slot& slot = slots_[index % kSlots];
    std::lock_guard<SpinLock> lock(slot.lock);
    if (slot.tracker == nullptr) return false;
    f(*slot.tracker);
    return true;
  }

  static constexpr uint32_t kSlots = EventHandle::kMaxTrackers;
  // Each tracker's generations start this far past the previous tracker's, so a stale handle of a slot's
  // previous tracker does not match a record of its next one before 2^28 / 2^20 = 256 trackers more.
  static constexpr uint32_t kGenerationsPerTracker = 1u << 20;

 private:
  struct Slot {
    SpinLock lock;
    CollectiveTracker* tracker = nullptr;  // owned by the communicator's profiler context
  };
  SpinLock addLock_;  // which slots are free, and the generations handed out
  std::array<Slot, kSlots> slots_;
  std::array<bool, kSlots> taken_{};
  uint32_t trackersMade_ = 0;
};

}  // namespace nccl_roce::profiler

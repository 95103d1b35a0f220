// The live communicators' trackers of one process, by the number their handles carry. NCCL gives stopEvent and
// recordEventState only the event handle, so the handle names the tracker and this finds it.
//
// Lifetime: NCCL destroys a communicator's proxy before it finalizes the profiler context, but a proxy thread
// shared between communicators, or a late event with a stale handle, can still name a tracker that is being
// removed. Each slot counts the events inside it; remove() empties the slot and waits for them to leave before
// the tracker is destroyed, so an event never touches freed memory. A handle of a removed tracker finds an
// empty slot (or a newer tracker whose generations differ) and is dropped.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {

class TrackerRegistry {
 public:
  // A new tracker in a free slot (its index and first generation set here); nullptr when every slot is taken.
  std::shared_ptr<CollectiveTracker> add(CollectiveTracker::Config config);
  void remove(const std::shared_ptr<CollectiveTracker>& tracker);

  class Pin;
  // Runs f(tracker) while the tracker named by `index` cannot be removed; false when the slot is empty.
  template <typename F>
  bool with(uint32_t index, F&& f);

  // Snapshots of every live tracker (for the metrics textfile).
  template <typename F>
  void forEach(F&& f) {
    for (uint32_t i = 0; i < kSlots; ++i) with(i, f);
  }

  static constexpr uint32_t kSlots = EventHandle::kMaxTrackers;

 private:
  struct Slot {
    std::atomic<CollectiveTracker*> tracker{nullptr};
    std::atomic<uint32_t> users{0};
    std::atomic<bool> taken{false};  // reserved from add() until remove() has finished
  };
  std::array<Slot, kSlots> slots_;
  std::atomic<uint32_t> nextGeneration_{1};
};

// The tracker named by `index`, kept from being removed while the pin lives; nullptr when the slot is empty.
// Inline: every channel stop takes one.
class TrackerRegistry::Pin {
 public:
  Pin(TrackerRegistry& registry, uint32_t index) : slot_(registry.slots_[index % kSlots]) {
    slot_.users.fetch_add(1);
    tracker_ = slot_.tracker.load();
  }
  ~Pin() { slot_.users.fetch_sub(1); }
  Pin(const Pin&) = delete;
  Pin& operator=(const Pin&) = delete;

  CollectiveTracker* tracker() const { return tracker_; }

 private:
  Slot& slot_;
  CollectiveTracker* tracker_;
};

template <typename F>
bool TrackerRegistry::with(uint32_t index, F&& f) {
  Pin pin(*this, index);
  if (pin.tracker() != nullptr) f(*pin.tracker());
  return pin.tracker() != nullptr;
}

}  // namespace nccl_roce::profiler

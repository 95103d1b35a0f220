// The registry stop events find their tracker through: a removed tracker is out of reach, and a stale handle
// of it never matches the tracker that takes its slot next.
#include "profiler/tracker_registry.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

CollEvent allReduce() {
  return CollEvent{"AllReduce", "ncclInt8", "RING", "LL", 4096, 1, nullptr};
}

TEST(TrackerRegistry, ARemovedTrackerIsOutOfReachAndItsSlotIsReused) {
  TrackerRegistry registry;
  std::shared_ptr<CollectiveTracker> first = registry.add({});
  ASSERT_NE(first, nullptr);
  uint32_t index = first->index();
  EXPECT_TRUE(registry.with(index, [&](CollectiveTracker& t) { EXPECT_EQ(&t, first.get()); }));
  registry.remove(first);
  EXPECT_FALSE(registry.with(index, [](CollectiveTracker&) { FAIL() << "reached a removed tracker"; }));
  std::shared_ptr<CollectiveTracker> next = registry.add({});
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->index(), index) << "the free slot is taken again";
}

// Generations start far apart per tracker: a handle the first tracker gave out names the same slot and record
// as the next tracker's first collective, yet it is dropped.
TEST(TrackerRegistry, AStaleHandleNeverMatchesTheNextTrackerInItsSlot) {
  TrackerRegistry registry;
  std::shared_ptr<CollectiveTracker> first = registry.add({});
  void* stale = first->startCollective(allReduce());
  registry.remove(first);
  std::shared_ptr<CollectiveTracker> next = registry.add({});
  void* fresh = next->startCollective(allReduce());
  EXPECT_EQ(EventHandle::of(stale).slot, EventHandle::of(fresh).slot);
  EXPECT_EQ(next->startChannel(stale, 0, 100), nullptr);
  EXPECT_EQ(next->dropped(Drop::kMissingParent), 1u);
  EXPECT_NE(next->startChannel(fresh, 0, 100), nullptr);
}

TEST(TrackerRegistry, FullAfterEverySlotIsTaken) {
  TrackerRegistry registry;
  std::vector<std::shared_ptr<CollectiveTracker>> all;
  CollectiveTracker::Config small;
  small.slots = 1;
  for (uint32_t i = 0; i < TrackerRegistry::kSlots; ++i) all.push_back(registry.add(small));
  EXPECT_EQ(registry.add(small), nullptr);
  registry.remove(all[7]);
  ASSERT_NE(registry.add(small), nullptr);
}

}  // namespace
}  // namespace nccl_roce::profiler

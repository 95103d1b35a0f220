#include "profiler/event_handle.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

TEST(EventHandle, RoundTripsEveryField) {
  EventHandle h{HandleKind::kChannel, 1023, 65535, 63, EventHandle::kGenerationMask};
  std::optional<EventHandle> back = EventHandle::decode(h.encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, HandleKind::kChannel);
  EXPECT_EQ(back->tracker, 1023u);
  EXPECT_EQ(back->slot, 65535u);
  EXPECT_EQ(back->channel, 63u);
  EXPECT_EQ(back->generation, EventHandle::kGenerationMask);
}

TEST(EventHandle, IsNeverNullAndNeverAUserSpacePointer) {
  EventHandle first{HandleKind::kGroup, 0, 0, 0, 0};
  EXPECT_NE(first.encode(), nullptr);
  EXPECT_FALSE(EventHandle::decode(nullptr));
  int local = 0;
  EXPECT_FALSE(EventHandle::decode(&local));  // x86-64 user addresses stay below 2^47
  EXPECT_FALSE(EventHandle::decode(reinterpret_cast<void*>(uintptr_t{0x00007fffffffffff})));
}

}  // namespace
}  // namespace nccl_roce::profiler

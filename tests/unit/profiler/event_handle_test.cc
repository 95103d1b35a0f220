// The handles NCCL holds for us: numbers that read back field by field, never nullptr, never a pointer.
#include "profiler/event_handle.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

EventHandle handle(HandleKind kind, uint32_t tracker, uint32_t slot, uint32_t channel, uint32_t generation) {
  EventHandle h;
  h.kind = kind;
  h.tracker = tracker;
  h.slot = slot;
  h.channel = channel;
  h.generation = generation;
  return h;
}

TEST(EventHandle, ReadsBackEveryFieldFromItsBits) {
  EventHandle back =
      EventHandle::of(handle(HandleKind::kChannel, 1023, 65535, 255, EventHandle::kGenerationMask).pointer());
  EXPECT_EQ(back.kind, HandleKind::kChannel);
  EXPECT_EQ(back.tracker, 1023u);
  EXPECT_EQ(back.slot, 65535u);
  EXPECT_EQ(back.channel, 255u);
  EXPECT_EQ(back.generation, EventHandle::kGenerationMask);
}

TEST(EventHandle, FieldsDoNotSpillIntoEachOther) {
  EventHandle h = EventHandle::of(handle(HandleKind::kCollective, 5, 7, 0, 9).pointer());
  EXPECT_EQ(h.kind, HandleKind::kCollective);
  EXPECT_EQ(h.tracker, 5u);
  EXPECT_EQ(h.slot, 7u);
  EXPECT_EQ(h.channel, 0u);
  EXPECT_EQ(h.generation, 9u);
  // Out-of-range values are cut to their field, never carried into the next one.
  EventHandle wide =
      EventHandle::of(handle(HandleKind::kGroup, 1024 + 2, 65536 + 3, 256 + 4, (1u << 27) + 5).pointer());
  EXPECT_EQ(wide.kind, HandleKind::kGroup);
  EXPECT_EQ(wide.tracker, 2u);
  EXPECT_EQ(wide.slot, 3u);
  EXPECT_EQ(wide.channel, 4u);
  EXPECT_EQ(wide.generation, 5u);
}

TEST(EventHandle, ACaptureHandleReadsBackAsOne) {
  EventHandle h = EventHandle::of(handle(HandleKind::kCapture, 17, 31000, 0, 1234).pointer());
  EXPECT_EQ(h.kind, HandleKind::kCapture);
  EXPECT_EQ(h.tracker, 17u);
  EXPECT_EQ(h.slot, 31000u);
  EXPECT_EQ(h.generation, 1234u);
  // The kinds we never make (5-7 in the top bits) are no handle of ours.
  EXPECT_EQ(EventHandle::of(reinterpret_cast<void*>(uintptr_t{7} << 61)).kind, HandleKind::kNone);
}

TEST(EventHandle, IsNeverNullAndNeverAUserSpacePointer) {
  EXPECT_NE(handle(HandleKind::kGroup, 0, 0, 0, 0).pointer(), nullptr);
  EXPECT_EQ(EventHandle::of(nullptr).kind, HandleKind::kNone);
  int local = 0;
  EXPECT_EQ(EventHandle::of(&local).kind, HandleKind::kNone);  // x86-64 user addresses stay below 2^47
  EXPECT_EQ(EventHandle::of(reinterpret_cast<void*>(uintptr_t{0x00007fffffffffff})).kind, HandleKind::kNone);
}

}  // namespace
}  // namespace nccl_roce::profiler

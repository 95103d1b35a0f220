#include "profiler/event_handle.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

TEST(EventHandle, ReadsBackEveryFieldFromItsBits) {
  EventHandle h = EventHandle::make(HandleKind::kChannel, 1023, 65535, 63, EventHandle::kGenerationMask);
  EventHandle back(h.pointer());
  EXPECT_EQ(back.kind(), HandleKind::kChannel);
  EXPECT_EQ(back.tracker(), 1023u);
  EXPECT_EQ(back.slot(), 65535u);
  EXPECT_EQ(back.channel(), 63u);
  EXPECT_EQ(back.generation(), EventHandle::kGenerationMask);
  EXPECT_EQ(back.owner(), EventHandle::ownerOf(HandleKind::kChannel, 1023));
}

TEST(EventHandle, FieldsDoNotSpillIntoEachOther) {
  EventHandle h = EventHandle::make(HandleKind::kCollective, 5, 7, 0, 9);
  EXPECT_EQ(h.kind(), HandleKind::kCollective);
  EXPECT_EQ(h.tracker(), 5u);
  EXPECT_EQ(h.slot(), 7u);
  EXPECT_EQ(h.channel(), 0u);
  EXPECT_EQ(h.generation(), 9u);
  // Out-of-range values are cut to their field, never carried into the next one.
  EventHandle wide = EventHandle::make(HandleKind::kGroup, 1024 + 2, 65536 + 3, 256 + 4, (1u << 28) + 5);
  EXPECT_EQ(wide.kind(), HandleKind::kGroup);
  EXPECT_EQ(wide.tracker(), 2u);
  EXPECT_EQ(wide.slot(), 3u);
  EXPECT_EQ(wide.channel(), 4u);
  EXPECT_EQ(wide.generation(), 5u);
}

TEST(EventHandle, OwnerTellsKindAndTrackerApart) {
  EventHandle coll = EventHandle::make(HandleKind::kCollective, 3, 1, 0, 1);
  EXPECT_EQ(coll.owner(), EventHandle::ownerOf(HandleKind::kCollective, 3));
  EXPECT_NE(coll.owner(), EventHandle::ownerOf(HandleKind::kChannel, 3));
  EXPECT_NE(coll.owner(), EventHandle::ownerOf(HandleKind::kCollective, 4));
}

TEST(EventHandle, AChannelHandleKeepsItsCollectivesTrackerSlotAndGeneration) {
  EventHandle coll = EventHandle::make(HandleKind::kCollective, 17, 4242, 0, 123456);
  EventHandle ch = coll.channelOf(37);
  EXPECT_EQ(ch.kind(), HandleKind::kChannel);
  EXPECT_EQ(ch.tracker(), 17u);
  EXPECT_EQ(ch.slot(), 4242u);
  EXPECT_EQ(ch.channel(), 37u);
  EXPECT_EQ(ch.generation(), 123456u);
  EXPECT_EQ(ch.bits(), EventHandle::make(HandleKind::kChannel, 17, 4242, 37, 123456).bits());
}

TEST(EventHandle, ATrackersBaseMakesTheSameHandlesAsMake) {
  EventHandle base = EventHandle::base(HandleKind::kCollective, 17);
  EXPECT_EQ(base.at(4242, 123456).bits(), EventHandle::make(HandleKind::kCollective, 17, 4242, 0, 123456).bits());
  EXPECT_EQ(base.at(65535, EventHandle::kGenerationMask).bits(),
            EventHandle::make(HandleKind::kCollective, 17, 65535, 0, EventHandle::kGenerationMask).bits());
  EXPECT_EQ(EventHandle::base(HandleKind::kGroup, 0).at(0, 1).kind(), HandleKind::kGroup);
}

TEST(EventHandle, SlotWithinCutsTheSlotToATrackersRange) {
  EventHandle h = EventHandle::make(HandleKind::kChannel, 1023, 0xABCD, 255, EventHandle::kGenerationMask);
  EXPECT_EQ(h.slotWithin(0x3fff), 0xABCDu & 0x3fff) << "neither the channel nor the tracker leak into it";
  EXPECT_EQ(h.slotWithin(0xffff), 0xABCDu);
}

TEST(EventHandle, IsNeverNullAndNeverAUserSpacePointer) {
  EXPECT_NE(EventHandle::make(HandleKind::kGroup, 0, 0, 0, 0).pointer(), nullptr);
  EXPECT_EQ(EventHandle(nullptr).kind(), HandleKind::kNone);
  int local = 0;
  EXPECT_EQ(EventHandle(&local).kind(), HandleKind::kNone);  // x86-64 user addresses stay below 2^47
  EXPECT_EQ(EventHandle(reinterpret_cast<void*>(uintptr_t{0x00007fffffffffff})).kind(), HandleKind::kNone);
}

}  // namespace
}  // namespace nccl_roce::profiler

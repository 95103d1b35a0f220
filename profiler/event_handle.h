// The handles the profiler gives NCCL are numbers, never pointers. NCCL hands a collective's handle back long
// after the collective was enqueued: as the parent of its kernel channels, and for a collective captured in a
// CUDA graph at every replay of the graph, possibly after the record was reused. A number carries the
// record's generation, so a stale handle is recognised and dropped instead of being followed into memory that
// now describes another collective. It also names the communicator, which stopEvent and recordEventState are
// not given.
//
// An EventHandle is the handle's bits; each field is read from them where it is used. Every kernel channel
// reads two or three fields of one or two handles, and decoding all five into a struct first cost as much as
// the tracker's own work.
#pragma once

#include <cstdint>

namespace nccl_roce::profiler {

// kNone: nullptr, or anything that is not one of our handles (user-space pointers have 0 in the top bits).
enum class HandleKind : uint8_t { kNone = 0, kGroup = 1, kCollective = 2, kChannel = 3 };

class EventHandle {
 public:
  static constexpr uint32_t kMaxTrackers = 1 << 10;
  static constexpr uint32_t kMaxSlots = 1 << 16;
  static constexpr uint32_t kMaxChannels = 1 << 8;
  static constexpr uint32_t kGenerationMask = (1u << 28) - 1;

  // kind:2 | tracker:10 | slot:16 | channel:8 | generation:28, from the top bit down. The kind is never 0, so no
  // handle is nullptr (which NCCL reads as "no event").
  static constexpr EventHandle make(HandleKind kind, uint32_t tracker, uint32_t slot, uint32_t channel,
                                    uint32_t generation) {
    return EventHandle(uint64_t{ownerOf(kind, tracker)} << kOwnerShift | uint64_t{slot & (kMaxSlots - 1)} << 36 |
                       uint64_t{channel & (kMaxChannels - 1)} << 28 | (generation & kGenerationMask));
  }
  // A kind and tracker with slot, channel and generation 0: a tracker keeps one per kind and makes its handles
  // with at(), which does not cut the fields again (the tracker passes them in range).
  static constexpr EventHandle base(HandleKind kind, uint32_t tracker) { return make(kind, tracker, 0, 0, 0); }
  EventHandle at(uint32_t slot, uint32_t generation) const {  // slot < kMaxSlots, generation <= kGenerationMask
    return EventHandle(bits_ | uint64_t{slot} << 36 | generation);
  }

  // What NCCL handed back (nullptr included).
  explicit EventHandle(const void* handle) : bits_(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle))) {}

  HandleKind kind() const { return static_cast<HandleKind>(bits_ >> 62); }
  uint32_t tracker() const { return static_cast<uint32_t>(bits_ >> kOwnerShift) & (kMaxTrackers - 1); }
  uint32_t slot() const { return static_cast<uint32_t>(bits_ >> 36) & (kMaxSlots - 1); }
  // The slot cut to a power-of-two range (mask < kMaxSlots): one mask instead of two.
  uint32_t slotWithin(uint32_t mask) const { return static_cast<uint32_t>(bits_ >> 36) & mask; }
  uint32_t channel() const { return static_cast<uint32_t>(bits_ >> 28) & (kMaxChannels - 1); }
  uint32_t generation() const { return static_cast<uint32_t>(bits_) & kGenerationMask; }
  // The kind and the tracker together (the top 12 bits): one comparison with ownerOf(kind, tracker) tells
  // whether a handle is of that kind and from that tracker.
  uint32_t owner() const { return static_cast<uint32_t>(bits_ >> kOwnerShift); }
  static constexpr uint32_t ownerOf(HandleKind kind, uint32_t tracker) {
    return uint32_t{static_cast<uint8_t>(kind)} << 10 | (tracker & (kMaxTrackers - 1));
  }

  // The handle of channel `channel` of this collective's handle: the same tracker, slot and generation.
  EventHandle channelOf(uint32_t channel) const {
    constexpr uint64_t kKindToChannel = uint64_t{static_cast<uint8_t>(HandleKind::kCollective) ^
                                                 static_cast<uint8_t>(HandleKind::kChannel)} << 62;
    return EventHandle((bits_ ^ kKindToChannel) | uint64_t{channel & (kMaxChannels - 1)} << 28);
  }

  void* pointer() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(bits_)); }
  uint64_t bits() const { return bits_; }

 private:
  static constexpr int kOwnerShift = 52;
  constexpr explicit EventHandle(uint64_t bits) : bits_(bits) {}

  uint64_t bits_;
};

}  // namespace nccl_roce::profiler

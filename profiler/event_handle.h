// The handles the profiler gives NCCL are numbers, never pointers. NCCL hands a collective's handle back later,
// as the parent of its kernel channels on the proxy thread, and a channel's handle with its stop; by then the
// collective's record may have been reused (the proxy thread far behind, or a communicator finalized and its
// tracker slot given to another). A handle carries its record's generation, so a stale one is recognised and
// dropped instead of being followed into memory that now describes another collective. It also names the
// tracker, which stopEvent and recordEventState are not given.
#pragma once

#include <cstdint>

namespace nccl_roce::profiler {

// kNone: nullptr, or anything that is not one of our handles (user-space pointers have 0 in the top bits).
// kCapture: a collective NCCL captured into a CUDA graph (its CollApi event, which NCCL names as the parent of the
// Coll event of every replay); its slot is the captured collective's (profiler/capture_timing.h).
enum class HandleKind : uint8_t { kNone = 0, kGroup = 1, kCollective = 2, kChannel = 3, kCapture = 4 };

struct EventHandle {
  static constexpr uint32_t kMaxTrackers = 1 << 10;
  static constexpr uint32_t kMaxSlots = 1 << 16;
  static constexpr uint32_t kMaxChannels = 1 << 8;
  static constexpr uint32_t kGenerationMask = (1u << 27) - 1;

  HandleKind kind = HandleKind::kNone;
  uint32_t tracker = 0;     // below kMaxTrackers: the tracker registry's slot
  uint32_t slot = 0;        // below kMaxSlots: the record (the group's number for a group)
  uint32_t channel = 0;     // below kMaxChannels: a channel handle's channel
  uint32_t generation = 0;  // at most kGenerationMask: the record's, when the handle was made

  // The bits NCCL holds, from the top bit down: kind 3 | tracker 10 | slot 16 | channel 8 | generation 27. No kind
  // is 0, so no handle is nullptr (which NCCL reads as "no event"). Fields past their width are cut.
  void* pointer() const {
    uint64_t bits = uint64_t{static_cast<uint8_t>(kind) & 7u} << 61 | uint64_t{tracker % kMaxTrackers} << 51 |
                    uint64_t{slot % kMaxSlots} << 35 | uint64_t{channel % kMaxChannels} << 27 |
                    (generation & kGenerationMask);
    return reinterpret_cast<void*>(static_cast<uintptr_t>(bits));
  }

  // What NCCL handed back (nullptr included), read field by field; a kind we never make reads as kNone.
  static EventHandle of(const void* handle) {
    auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
    EventHandle h;
    const auto kind = static_cast<uint8_t>(bits >> 61);
    h.kind = kind <= static_cast<uint8_t>(HandleKind::kCapture) ? static_cast<HandleKind>(kind) : HandleKind::kNone;
    h.tracker = static_cast<uint32_t>(bits >> 51) % kMaxTrackers;
    h.slot = static_cast<uint32_t>(bits >> 35) % kMaxSlots;
    h.channel = static_cast<uint32_t>(bits >> 27) % kMaxChannels;
    h.generation = static_cast<uint32_t>(bits) & kGenerationMask;
    return h;
  }
};

}  // namespace nccl_roce::profiler

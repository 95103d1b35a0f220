// The handles the profiler gives NCCL are numbers, never pointers. NCCL hands a collective's handle back long
// after the collective was enqueued: as the parent of its kernel channels, and for a collective captured in a
// CUDA graph at every replay of the graph, possibly after the record was reused. A number carries the
// record's generation, so a stale handle is recognised and dropped instead of being followed into memory that
// now describes another collective. It also names the communicator, which stopEvent and recordEventState are
// not given.
#pragma once

#include <cstdint>
#include <optional>

namespace nccl_roce::profiler {

enum class HandleKind : uint8_t { kGroup = 1, kCollective = 2, kChannel = 3 };

struct EventHandle {
  HandleKind kind = HandleKind::kCollective;
  uint32_t tracker = 0;     // which communicator's tracker (kMaxTrackers)
  uint32_t slot = 0;        // the record in that tracker
  uint32_t channel = 0;     // kChannel only
  uint32_t generation = 0;  // the record's generation when the handle was made (28 bits)

  static constexpr uint32_t kMaxTrackers = 1 << 10;
  static constexpr uint32_t kMaxSlots = 1 << 16;
  static constexpr uint32_t kMaxChannels = 1 << 8;
  static constexpr uint32_t kGenerationMask = (1u << 28) - 1;

  // kind:2 | tracker:10 | slot:16 | channel:8 | generation:28, from the top bit down. The kind is never 0, so no
  // handle is nullptr (which NCCL reads as "no event"). Inline: several run per collective.
  void* encode() const {
    uint64_t bits = uint64_t{static_cast<uint8_t>(kind)} << 62 | uint64_t{tracker & (kMaxTrackers - 1)} << 52 |
                    uint64_t{slot & (kMaxSlots - 1)} << 36 | uint64_t{channel & (kMaxChannels - 1)} << 28 |
                    (generation & kGenerationMask);
    return reinterpret_cast<void*>(static_cast<uintptr_t>(bits));
  }
  // nullopt for nullptr and anything that is not one of ours.
  static std::optional<EventHandle> decode(const void* handle) {
    auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
    auto kind = static_cast<uint8_t>(bits >> 62);
    if (kind == 0) return std::nullopt;
    EventHandle h;
    h.kind = static_cast<HandleKind>(kind);
    h.tracker = static_cast<uint32_t>(bits >> 52) & (kMaxTrackers - 1);
    h.slot = static_cast<uint32_t>(bits >> 36) & (kMaxSlots - 1);
    h.channel = static_cast<uint32_t>(bits >> 28) & (kMaxChannels - 1);
    h.generation = static_cast<uint32_t>(bits) & kGenerationMask;
    return h;
  }
};

}  // namespace nccl_roce::profiler

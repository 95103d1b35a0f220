#include "profiler/event_handle.h"

namespace nccl_roce::profiler {

// kind:2 | tracker:10 | slot:16 | channel:8 | generation:28, from the top bit down. The kind is never 0, so no
// handle is nullptr (which NCCL reads as "no event").
void* EventHandle::encode() const {
  uint64_t bits = uint64_t{static_cast<uint8_t>(kind)} << 62 | uint64_t{tracker & (kMaxTrackers - 1)} << 52 |
                  uint64_t{slot & (kMaxSlots - 1)} << 36 | uint64_t{channel & (kMaxChannels - 1)} << 28 |
                  (generation & kGenerationMask);
  return reinterpret_cast<void*>(static_cast<uintptr_t>(bits));
}

std::optional<EventHandle> EventHandle::decode(const void* handle) {
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

}  // namespace nccl_roce::profiler

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

  void* encode() const;
  // nullopt for nullptr and anything that is not one of ours.
  static std::optional<EventHandle> decode(const void* handle);
};

}  // namespace nccl_roce::profiler

// The power-of-two size bucket that decision statistics and collective timings share, so the two join.
// Inline: the profiler computes one per collective.
#pragma once

#include <cstdint>

namespace nccl_roce::telemetry {

// floor(log2(bytes)), 0 for 0 and 1 (| 1 changes no other floor(log2), and spares a branch).
inline int sizeBucket(uint64_t bytes) {
  return 63 - __builtin_clzll(bytes | 1);
}

}  // namespace nccl_roce::telemetry

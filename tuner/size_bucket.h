// The power-of-two size bucket that decision statistics and collective timings share, so the two join.
// Inline: the profiler computes one per collective.
#pragma once

#include <cstdint>

namespace nccl_roce::tuner {

// floor(log2(bytes)), 0 for 0 and 1.
inline int sizeBucket(uint64_t bytes) { return bytes <= 1 ? 0 : 63 - __builtin_clzll(bytes); }

}  // namespace nccl_roce::tuner

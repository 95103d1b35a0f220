// The power-of-two size bucket that decision counts and collective timings share, so the two join: bucket b holds
// sizes from 2^b to 2^(b+1) - 1 bytes (bucket 0 also holds 0).
#pragma once

#include <cstdint>
#include <string>

namespace nccl_roce::telemetry {

// Buckets a 64-bit byte count falls in: 0..63.
inline constexpr int kNumBuckets = 64;

// floor(log2(bytes)), 0 for 0 and 1 (| 1 changes no other floor(log2), and spares a branch). Inline: the profiler
// computes one per collective.
inline int sizeBucket(uint64_t bytes) {
  return 63 - __builtin_clzll(bytes | 1);
}

uint64_t bucketMinBytes(int bucket);  // 0 for bucket 0, else 2^bucket
uint64_t bucketMaxBytes(int bucket);  // 2^(bucket+1) - 1
// "64K-128K": how files, labels and reports name a bucket (its upper end exclusive; "16E" past 2^63).
std::string bucketLabel(int bucket);

}  // namespace nccl_roce::telemetry

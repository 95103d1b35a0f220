// What a tuner decision or a collective's timing is counted under: the collective, its power-of-two size bucket,
// the choice that ran (telemetry/choice.h) and, for a timing, where the time came from.
// One type for the tuner's decision counts (tuner/decision_counts.h), the profiler's timing table
// (profiler/timing_table.h), the statistics file and the metrics textfile that write them, and the fleet readers,
// so a decision and the timings of what it chose join field by field.
//
// The coarser (collective, size bucket) part that arms are compared over is a "cell", numbered by cellIndex below:
// one encoding for the switchback's arm map and timings and for fleet's reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "telemetry/choice.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

// A (collective, size bucket) cell as one small number: collective x kNumBuckets + bucket, so one collective's
// buckets are a contiguous, ordered range. Valid cells are 0 .. kNumCells - 1.
inline constexpr int kNumCells = kNumCollectives * kNumBuckets;
constexpr bool isCell(int collective, int bucket) {
  return collective >= 0 && collective < kNumCollectives && bucket >= 0 && bucket < kNumBuckets;
}
constexpr int cellIndex(int collective, int bucket) {
  return collective * kNumBuckets + bucket;
}
constexpr int collectiveOfCell(int cell) {
  return cell / kNumBuckets;
}
constexpr int bucketOfCell(int cell) {
  return cell % kNumBuckets;
}

enum class TimingSource : uint8_t {
  kNone = 0,            // not a timing (a decision's key)
  kKernelGpu = 1,       // GPU %globaltimer stamps of the collective's kernel channels (NCCL 2.27+)
  kKernelGpuBatch = 2,  // the same, for a kernel that ran several collectives: the batch's time, not divided
  kKernelHost = 3,      // host clock when the proxy thread saw the channels start and stop (NCCL 2.26)
};
// "kernel_gpu", "kernel_gpu_batch", "kernel_host"; "none" for kNone.
const char* timingSourceName(TimingSource source);

struct CellKey {
  int8_t collective = -1;  // NCCL's index (telemetry/nccl_names.h); -1 unknown
  uint8_t bucket = 0;      // sizeBucket(bytes), bytes as the tuner counts them
  // What ran. A decision's channels are as the rule set them (0: NCCL decided); a timing's, what the kernel ran
  // on. The algorithm and protocol are -1 where NCCL's pick could not be read, or is a name we do not know.
  Choice choice;
  TimingSource source = TimingSource::kNone;

  bool operator==(const CellKey& o) const {
    return collective == o.collective && bucket == o.bucket && choice == o.choice && source == o.source;
  }
  bool operator!=(const CellKey& o) const { return !(*this == o); }
  // By collective, bucket, then the choice: the order statistics files list cells in.
  bool operator<(const CellKey& o) const;
};

// A key from the tuner's values; indices out of NCCL's ranges become -1 (unknown), channels past 255 saturate.
CellKey cellKey(int collective, uint64_t bytes, int algorithm, int protocol, int channels, uint32_t chunkSize = 0);

// For hash maps (FlatMap<CellKey, V, CellKeyHash>, common/flat_map.h): the fields side by side in one integer,
// the chunk size over the upper ones (keys that differ only in bits it overlaps share a hash, which costs a
// comparison, never a wrong answer).
struct CellKeyHash {
  size_t operator()(const CellKey& k) const noexcept {
    uint64_t fields = uint64_t{static_cast<uint8_t>(k.collective)} | uint64_t{k.bucket} << 8 |
                      uint64_t{static_cast<uint8_t>(k.choice.algorithm)} << 16 |
                      uint64_t{static_cast<uint8_t>(k.choice.protocol)} << 24 | uint64_t{k.choice.channels} << 32 |
                      uint64_t{static_cast<uint8_t>(k.source)} << 40;
    return static_cast<size_t>(fields ^ uint64_t{k.choice.chunkSize} << 24);
  }
};

}  // namespace nccl_roce::telemetry

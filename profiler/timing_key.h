// What a collective's duration is aggregated by: the same collective, power-of-two size bucket and choice as the
// tuner's decision statistics (so the two join), plus where the time came from.
#pragma once

#include <cstdint>

namespace nccl_roce::profiler {

enum class TimingSource : uint8_t {
  kKernelGpu = 0,       // GPU %globaltimer stamps of the collective's kernel channels (NCCL 2.27+)
  kKernelGpuBatch = 1,  // the same, for a kernel that ran several collectives: the batch's time, not divided
  kKernelHost = 2,      // host clock when the proxy thread saw the channels start and stop (NCCL 2.26)
};
const char* timingSourceName(TimingSource source);  // "kernel_gpu", "kernel_gpu_batch", "kernel_host"

struct TimingKey {
  int8_t collective = -1;  // tuner index (tuner/nccl_names.h), -1 unknown
  uint8_t bucket = 0;      // floor(log2(bytes)) as the tuner counts them
  int8_t algorithm = -1;
  int8_t protocol = -1;
  uint8_t channels = 0;
  TimingSource source = TimingSource::kKernelGpu;

  // One integer per key, for the table's lookups and the tracker's records; bit 63 set, so never 0. The
  // per-collective path builds it from parts cached per communicator, so the fields' places are named.
  static constexpr int kBucketShift = 8, kChannelsShift = 32, kSourceShift = 40;
  static constexpr uint64_t kValid = uint64_t{1} << 63;
  uint64_t packed() const {
    return uint64_t{static_cast<uint8_t>(collective)} | uint64_t{bucket} << kBucketShift |
           uint64_t{static_cast<uint8_t>(algorithm)} << 16 | uint64_t{static_cast<uint8_t>(protocol)} << 24 |
           uint64_t{channels} << kChannelsShift | uint64_t{static_cast<uint8_t>(source)} << kSourceShift | kValid;
  }
  static TimingKey unpack(uint64_t packed) {
    auto byte = [packed](int shift) { return static_cast<uint8_t>(packed >> shift); };
    return {static_cast<int8_t>(byte(0)), byte(kBucketShift), static_cast<int8_t>(byte(16)),
            static_cast<int8_t>(byte(24)), byte(kChannelsShift), static_cast<TimingSource>(byte(kSourceShift))};
  }
};

}  // namespace nccl_roce::profiler

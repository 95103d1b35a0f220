#include "profiler/timing_key.h"

namespace nccl_roce::profiler {

const char* timingSourceName(TimingSource source) {
  switch (source) {
    case TimingSource::kKernelGpu: return "kernel_gpu";
    case TimingSource::kKernelGpuBatch: return "kernel_gpu_batch";
    case TimingSource::kKernelHost: break;
  }
  return "kernel_host";
}

uint64_t TimingKey::packed() const {
  return uint64_t{static_cast<uint8_t>(collective)} | uint64_t{bucket} << 8 |
         uint64_t{static_cast<uint8_t>(algorithm)} << 16 | uint64_t{static_cast<uint8_t>(protocol)} << 24 |
         uint64_t{channels} << 32 | uint64_t{static_cast<uint8_t>(source)} << 40 | uint64_t{1} << 63;
}

}  // namespace nccl_roce::profiler

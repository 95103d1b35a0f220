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

}  // namespace nccl_roce::profiler

#include "telemetry/cell_key.h"

#include <string>
#include <tuple>

#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

namespace {

auto fields(const CellKey& k) {
  return std::tie(k.collective, k.bucket, k.choice, k.source);
}

}  // namespace

const char* timingSourceName(TimingSource source) {
  switch (source) {
    case TimingSource::kKernelGpu:
      return "kernel_gpu";
    case TimingSource::kKernelGpuBatch:
      return "kernel_gpu_batch";
    case TimingSource::kKernelHost:
      return "kernel_host";
    case TimingSource::kNone:
      break;
  }
  return "none";
}

bool CellKey::operator<(const CellKey& o) const {
  return fields(*this) < fields(o);
}

CellKey cellKey(int collective, uint64_t bytes, int algorithm, int protocol, int channels, uint32_t chunkSize) {
  CellKey key;
  key.collective = static_cast<int8_t>(collective >= 0 && collective < kNumCollectives ? collective : -1);
  key.bucket = static_cast<uint8_t>(sizeBucket(bytes));
  key.choice = Choice::of(algorithm, protocol, channels, chunkSize);
  return key;
}

}  // namespace nccl_roce::telemetry

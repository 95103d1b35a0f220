#include "telemetry/cell_key.h"

#include <string>
#include <tuple>

#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

namespace {

auto fields(const CellKey& k) {
  return std::tie(k.collective, k.bucket, k.algorithm, k.protocol, k.channels, k.chunkSize, k.source);
}

int8_t indexOrUnknown(int index, int count) {
  return static_cast<int8_t>(index >= 0 && index < count ? index : -1);
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
  key.collective = indexOrUnknown(collective, kNumCollectives);
  key.bucket = static_cast<uint8_t>(sizeBucket(bytes));
  key.algorithm = indexOrUnknown(algorithm, kMaxAlgorithms);
  key.protocol = indexOrUnknown(protocol, kNumProtocols);
  key.channels = static_cast<uint8_t>(channels < 0 ? 0 : channels > 255 ? 255 : channels);
  key.chunkSize = chunkSize;
  return key;
}

}  // namespace nccl_roce::telemetry

#include "fleet/fleet_records.h"

#include "common/strings.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

uint64_t cellOf(int collective, int bucket) {
  return static_cast<uint64_t>(telemetry::cellIndex(collective, bucket));
}
int collectiveOfCell(uint64_t cell) {
  return telemetry::collectiveOfCell(static_cast<int>(cell));
}
int bucketOfCell(uint64_t cell) {
  return telemetry::bucketOfCell(static_cast<int>(cell));
}

const char* timingClockName(TimingClock clock) {
  switch (clock) {
    case TimingClock::kCpuKernel:
      return "CPU (kernel)";
    case TimingClock::kCpuCollective:
      return "CPU (collective)";
    case TimingClock::kGpu:
      break;
  }
  return "GPU";
}

TimingClock clockOf(telemetry::TimingSource source) {
  return source == telemetry::TimingSource::kKernelHost ? TimingClock::kCpuKernel : TimingClock::kGpu;
}

std::optional<TimingClock> clockOfTimingSource(const std::string& source) {
  if (source == "kernel_gpu" || source == "kernel_gpu_batch" || source == "none") return TimingClock::kGpu;
  if (source == "kernel_host" || source == "kernel_cpu") return TimingClock::kCpuKernel;
  if (source == "collective_cpu") return TimingClock::kCpuCollective;
  return std::nullopt;
}

std::string describeCell(uint64_t cell) {
  return std::string(telemetry::collectiveName(collectiveOfCell(cell))) + " " +
         telemetry::bucketLabel(bucketOfCell(cell));
}

}  // namespace nccl_roce::fleet

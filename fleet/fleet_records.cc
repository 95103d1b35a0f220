#include "fleet/fleet_records.h"

#include "common/strings.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::fleet {

uint64_t cellOf(int collective, int bucket) {
  return static_cast<uint64_t>(collective) << 8 | static_cast<uint64_t>(bucket & 0xff);
}
int collectiveOfCell(uint64_t cell) { return static_cast<int>(cell >> 8); }
int bucketOfCell(uint64_t cell) { return static_cast<int>(cell & 0xff); }

const char* decisionSourceName(DecisionSource source) {
  switch (source) {
    case DecisionSource::kRule:
      return "rule";
    case DecisionSource::kUnavailable:
      return "unavailable";
    case DecisionSource::kNccl:
      break;
  }
  return "nccl";
}

std::optional<DecisionSource> decisionSourceNamed(const std::string& name) {
  for (DecisionSource s : {DecisionSource::kNccl, DecisionSource::kRule, DecisionSource::kUnavailable}) {
    if (name == decisionSourceName(s)) return s;
  }
  return std::nullopt;
}

std::string describeBucket(int bucket) {
  uint64_t lo = bucket == 0 ? 0 : uint64_t{1} << bucket;
  return formatByteSize(lo) + "-" + (bucket >= 63 ? std::string("16E") : formatByteSize(uint64_t{1} << (bucket + 1)));
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

std::optional<TimingClock> clockOfTimingSource(const std::string& source) {
  if (source == "kernel_gpu" || source == "kernel_gpu_batch" || source == "none") return TimingClock::kGpu;
  if (source == "kernel_host" || source == "kernel_cpu") return TimingClock::kCpuKernel;
  if (source == "collective_cpu") return TimingClock::kCpuCollective;
  return std::nullopt;
}

std::string describeCell(uint64_t cell) {
  return std::string(telemetry::collectiveName(collectiveOfCell(cell))) + " " + describeBucket(bucketOfCell(cell));
}

}  // namespace nccl_roce::fleet

#include "telemetry/timings.h"

namespace nccl_roce::telemetry {

const char* dropName(Drop drop) {
  switch (drop) {
    case Drop::kUnknownEvent:
      return "unknown_event";
    case Drop::kMissingParent:
      return "missing_parent";
    case Drop::kStopWithoutStart:
      return "stop_without_start";
    case Drop::kStopBeforeStart:
      return "stop_before_start";
    case Drop::kTimerWrapped:
      return "timer_wrapped";
    case Drop::kTooManyKeys:
      return "too_many_keys";
    case Drop::kIncomplete:
      break;
  }
  return "incomplete";
}

std::optional<Drop> dropNamed(std::string_view name) {
  for (int i = 0; i < kNumDrops; ++i) {
    if (name == dropName(static_cast<Drop>(i))) return static_cast<Drop>(i);
  }
  return std::nullopt;
}

uint64_t Timings::timed() const {
  uint64_t n = 0;
  for (const KeyTimings& k : keys) n += k.histogram.count();
  return n;
}

}  // namespace nccl_roce::telemetry

// One communicator's collective durations as the profiler hands them out: per timed key a histogram, labelled with
// the tuner rule that decided it, and the events that could not be used, by reason.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/cell_key.h"
#include "telemetry/log_histogram.h"
#include "telemetry/switchback.h"

namespace nccl_roce::telemetry {

enum class Drop : uint8_t {
  kUnknownEvent,      // an event of a type this plugin does not know (NCCL's API-level events are known: ignored)
  kMissingParent,     // a kernel channel we cannot place: its collective is not held (never started, or long
                      // recycled), or the channel is past NCCL's 64
  kStopWithoutStart,  // a channel stopped that had not started
  kStopBeforeStart,   // a stop stamp earlier than the start
  kTimerWrapped,      // a duration past the histogram's range (about 77 s): a wrapped or garbage stamp
  kTooManyKeys,       // more distinct keys than the profiler's table holds
  kIncomplete,        // a kernel whose channels did not all report before the next one started
};
inline constexpr int kNumDrops = 7;
const char* dropName(Drop drop);                       // "unknown_event", ... as files and metrics name them
std::optional<Drop> dropNamed(std::string_view name);  // the inverse

struct KeyTimings {
  CellKey key;  // what the kernel ran (its channels), the chunk size the deciding rule set, the clock
  LogHistogram histogram;
  std::string rule;  // the tuner rule that decided most calls of this key's cell and choice; "" for none
};

struct Timings {
  std::array<uint64_t, kNumDrops> dropped{};
  std::vector<KeyTimings> keys;                 // in key order, non-empty histograms only
  std::optional<SwitchbackTimings> switchback;  // a switchback experiment's windows and arms (telemetry/switchback.h)

  uint64_t timed() const;  // collectives over every key
};

}  // namespace nccl_roce::telemetry

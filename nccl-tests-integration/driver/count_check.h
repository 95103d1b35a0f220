// The GPU proof's count check: every collective a driver rank issued (its "# nccl-roce-issued:" lines,
// issued_counts.h) against what our plugin wrote for that process (its statistics file, NCCL_ROCE_STATS): the
// profiler timed each collective that ran once (eager calls and every graph replay), the tuner was asked once per
// collective planned (eager calls and captures), and no event was dropped. A process is found by its pid (and host,
// where both say).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nccl-tests-integration/driver/issued_counts.h"
#include "telemetry/stats_file.h"

namespace nccl_roce::driver {

struct CountCheck {
  IssuedLine issued;
  std::string statsFile;  // "" when no statistics file is the process's
  uint64_t timed = 0, tunerCalls = 0, dropped = 0;
  bool tunerCounted = false;          // the file holds the tuner's decisions (NCCL_TUNER_PLUGIN=roce)
  bool profilerCounted = false;       // the file holds the profiler's timings (NCCL_PROFILER_PLUGIN=roce)
  std::vector<std::string> problems;  // empty: the counts agree

  bool ok() const { return problems.empty(); }
};

// One check per issued line; `stats` are (path, parsed file).
std::vector<CountCheck> checkCounts(const std::vector<IssuedLine>& issued,
                                    const std::vector<std::pair<std::string, telemetry::StatsFile>>& stats);

// "rank 0 (pid 620) AllReduce: issued 1248 eager, 0 captured, 0 replayed; timed 1248, tuner calls 1248, 0 dropped"
std::string describeCountCheck(const CountCheck& check);

}  // namespace nccl_roce::driver

// Finding and reading nccl-tests logs named on a command line: a path is one log, or a directory of them
// (run-sweep.sh writes OUT/<configuration>/rep-N.log).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

// nccl-tests logs are text of a few KiB to a few MiB; anything far larger is not one.
inline constexpr size_t kMaxLogBytes = size_t{256} << 20;

// Each file as given; for a directory, the *.log and *.txt regular files in it and in its subdirectories
// (4 levels deep; hidden names skipped), in natural name order.
// kNotFound for a missing path, kInvalidArgument for a directory without logs.
StatusOr<std::vector<std::string>> expandLogPaths(const std::vector<std::string>& paths);

// Reads and parses one file.
StatusOr<PerfLog> readPerfLog(const std::string& path);

// expandLogPaths then readPerfLog for each.
StatusOr<std::vector<PerfLog>> readPerfLogs(const std::vector<std::string>& paths);

}  // namespace nccl_roce::sweep

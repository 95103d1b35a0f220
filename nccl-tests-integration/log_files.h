// Finding and reading nccl-tests logs named on a command line: a path is one log, or a directory whose
// *.log and *.txt files are logs (the runner writes one directory per configuration).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "nccl-tests-integration/perf_log.h"

namespace nccl_roce::sweep {

// nccl-tests logs are text of a few KiB to a few MiB; anything far larger is not one.
inline constexpr size_t kMaxLogBytes = size_t{256} << 20;

// Each file as given; each directory's *.log and *.txt regular files in natural name order.
// kNotFound for a missing path, kInvalidArgument for a directory without logs.
StatusOr<std::vector<std::string>> expandLogPaths(const std::vector<std::string>& paths);

// Reads and parses one file.
StatusOr<PerfLog> readPerfLog(const std::string& path);

// expandLogPaths then readPerfLog for each.
StatusOr<std::vector<PerfLog>> readPerfLogs(const std::vector<std::string>& paths);

}  // namespace nccl_roce::sweep

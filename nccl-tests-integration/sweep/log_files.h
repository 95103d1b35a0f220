// Finding and reading nccl-tests logs named on a command line: a path is one log, or a directory of them
// (run-sweep.sh writes OUT/<configuration>/rep-N.log).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/directory_walk.h"
#include "common/status.h"
#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

// nccl-tests logs are text of a few KiB to a few MiB; anything far larger is not one.
inline constexpr size_t kMaxLogBytes = size_t{256} << 20;

// The logs a command line names, and the entries of its directories that were not read.
struct LogFiles {
  std::vector<FoundFile> files;
  std::vector<SkippedEntry> skipped;
};

// Each file as given (links followed: the user named it); for a directory, the *.log and *.txt regular files in it
// and in its subdirectories (4 levels deep; hidden names skipped), in natural name order, read beneath it: a
// directory others can write may hold links, FIFOs or devices with such names, which are named in `skipped` and
// never opened (common/directory_walk.h, docs/security.md). kNotFound for a missing path, kInvalidArgument for a
// directory without logs.
StatusOr<LogFiles> expandLogPaths(const std::vector<std::string>& paths);

// Reads and parses one file.
StatusOr<PerfLog> readPerfLog(const FoundFile& file);
StatusOr<PerfLog> readPerfLog(const std::string& path);

// expandLogPaths then readPerfLog for each; what was skipped added to `skipped` when given.
StatusOr<std::vector<PerfLog>> readPerfLogs(const std::vector<std::string>& paths,
                                            std::vector<SkippedEntry>* skipped = nullptr);

}  // namespace nccl_roce::sweep

// One log on both sides of `sweep compare`. A replicate counted as A and as B pulls every ratio toward 1 and
// hides the difference the comparison looks for, and a side that is a subset of the other compares a sweep with
// itself. The usual slips: a directory compared with a subdirectory of itself, a log copied into both sides, the
// same directory given twice. Logs are the same when their text is (a copy is found as well as the file itself).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

struct SharedLogs {
  std::vector<std::pair<std::string, std::string>> pairs;  // (A's log, B's log) with the same text
  size_t logsA = 0, logsB = 0;                             // logs with a run on each side
};

// The logs with a run (readPerfLog's, which carry their text's digest) that appear on both sides.
SharedLogs sharedLogs(const std::vector<PerfLog>& a, const std::vector<PerfLog>& b);

// One sentence naming what is shared and what that does to the verdicts, with the sides' labels; "" when no log
// is.
std::string describeSharedLogs(const SharedLogs& shared, const std::string& labelA, const std::string& labelB);

}  // namespace nccl_roce::sweep

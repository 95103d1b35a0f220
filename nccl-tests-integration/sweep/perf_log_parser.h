// parsePerfLog: nccl-tests output text -> PerfLog. A pure function of the text: it never throws, never
// aborts, and always returns what it could read. Lines it does not understand are counted and skipped;
// rows that look like data but do not parse are reported with their line number; truncated tables keep
// the rows they have. See docs/sweep.md for every layout it accepts.
#pragma once

#include <string>
#include <string_view>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

PerfLog parsePerfLog(std::string_view text, const std::string& source) noexcept;

}  // namespace nccl_roce::sweep

// `nccl-roce ab`'s note on flat timings: an arm whose durations stay at one value across the size buckets measured a
// time-sliced or saturated device, not its collectives (verdicts/flat_timings.h), and its verdicts mean nothing.
#pragma once

#include "fleet/ab_comparison.h"

namespace nccl_roce::cli {

// Appends a note per arm (the control included) and clock whose geometric means over its communicators are flat,
// and says each on stderr, prefixed "nccl-roce COMMAND: ". Returns whether there was any.
bool noteFlatTimings(fleet::AbReport& report, const char* command);

}  // namespace nccl_roce::cli

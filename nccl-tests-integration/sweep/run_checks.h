// What the parser concludes about a run once all its lines are read: which collective it measured when the
// log does not say, and whether it can be trusted as a measurement (see docs/sweep.md, "Bad input").
#pragma once

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

// Fills collective (from the recorded command, else from the rows), rejections and warnings.
void finalizeRun(PerfRun& run);

// The collective the rows imply, or "" when they do not say unambiguously. all_reduce rows have
// size == count x element size with a reduction and no root; reduce_scatter rows have
// size == count x element size x ranks with a reduction. Other collectives are not told apart by rows.
std::string inferCollective(const PerfRun& run);

}  // namespace nccl_roce::sweep

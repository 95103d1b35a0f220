// `sweep compare --svg`: both curves (median time per size, log-log) and the ratio B/A with its confidence
// interval, one pair of panels per series, as a self-contained SVG file (no scripts, no external fonts).
#pragma once

#include <string>

#include "nccl-tests-integration/sweep/compare.h"

namespace nccl_roce::sweep {

std::string comparisonToSvg(const Comparison& comparison);

}  // namespace nccl_roce::sweep

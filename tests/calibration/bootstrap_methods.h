// Interval methods the statistics core does NOT use, kept so the calibration report can show why: the
// percentile bootstrap of the median ratio that `sweep compare` used before (per size, each with its own seed,
// the summary adding up independent per-size draws), and a cluster bootstrap that resamples whole runs.
#pragma once

#include <optional>
#include <random>
#include <vector>

#include "verdicts/unit_comparison.h"

namespace nccl_roce::verdicts::calibration {

struct SimpleInterval {
  double estimate = 1, low = 1, high = 1;
};

struct MethodResult {
  std::vector<SimpleInterval> cells;  // per cell, in the order given
  SimpleInterval range;               // geometric mean over the cells
};

// Percentile bootstrap of median(B)/median(A) per cell with independent draws; range from summing per-cell log
// draws as if independent (what compare.cc did until the statistics core).
MethodResult medianPercentileBootstrap(const std::vector<Unit>& a, const std::vector<Unit>& b,
                                       const std::vector<uint64_t>& cells, double confidence, int resamples,
                                       std::mt19937_64& rng);

// Percentile bootstrap of the ratio of geometric means, resampling whole units of each side, jointly for every
// cell and the range.
MethodResult clusterBootstrap(const std::vector<Unit>& a, const std::vector<Unit>& b,
                              const std::vector<uint64_t>& cells, double confidence, int resamples,
                              std::mt19937_64& rng);

}  // namespace nccl_roce::verdicts::calibration

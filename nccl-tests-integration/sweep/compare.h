// `sweep compare A B`: per series and size, the ratio B/A of geometric-mean times over replicate runs with a
// confidence interval and a verdict, and a summary over the inference range (16 KiB - 64 MiB by default).
// The statistics are the project's one core (stats/): replicate runs are the units, so the per-size and the
// summary intervals rest on the same runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/sweep/sample_set.h"
#include "verdicts/settings.h"
#include "verdicts/unit_comparison.h"

namespace nccl_roce::sweep {

using verdicts::Verdict;

struct CompareOptions {
  Placement placement = Placement::kOutOfPlace;
  // Per size and per summary: when there is no difference, a faster or slower verdict at most 1 - confidence
  // of the time. Defaults: 95%, 1% minimum effect, 2 replicates per side.
  verdicts::Settings verdicts;
  uint64_t rangeLo = uint64_t{16} << 10;  // inference range, inclusive
  uint64_t rangeHi = uint64_t{64} << 20;
};

struct SeriesComparison {
  SeriesKey key;
  int runsA = 0, runsB = 0;
  verdicts::UnitComparison result;  // cells are message sizes; the range is the inference range
  std::vector<uint64_t> onlyInA, onlyInB;
  // Sizes that not every replicate measured ("replicates with different size lists").
  std::vector<std::string> unevenSizes;
  std::optional<uint64_t> worstSize, bestSize;  // largest and smallest ratio in range
};

struct Comparison {
  std::string labelA, labelB;
  CompareOptions options;
  std::vector<SeriesComparison> series;
  // From sample collection, series found on one side only, sides that ran different NCCL versions.
  std::vector<std::string> notes;
};

Comparison compareSweeps(const SampleSet& a, const SampleSet& b, const CompareOptions& options);

}  // namespace nccl_roce::sweep

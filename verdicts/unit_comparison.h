// An A/B over units. A unit is the thing that was randomised or repeated as a whole: a replicate run of a
// sweep, a communicator of a live experiment. Each unit measured some cells (message sizes, size buckets).
// Units are the independent samples, so every interval here, per cell and over a range of cells, is computed
// from one value per unit: a run that was slow at every size counts once, not once per size.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verdicts/ratio_interval.h"
#include "verdicts/settings.h"
#include "verdicts/verdict.h"

namespace nccl_roce::verdicts {

struct Unit {
  std::string name;                   // where it came from, for messages ("rep-2.log:14", "comm 0x3f2a...")
  std::map<uint64_t, double> values;  // cell -> a positive measurement (a time in microseconds)
};

struct CellComparison {
  uint64_t cell = 0;
  int nA = 0, nB = 0;                 // units that measured this cell
  double geomeanA = 0, geomeanB = 0;  // geometric means over those units
  double ratio = 1;                   // geomeanB / geomeanA
  std::optional<RatioInterval> interval;
  std::string whyNoInterval;  // when interval is empty
  // Per cell: when the truth is "no difference", wrong at most 1 - confidence of the time.
  Verdict verdict = Verdict::kInsufficient;
};

// The geometric mean over a range of cells of the per-cell ratios. Each unit contributes the mean of its log
// values over the cells, so the interval sees the same units as the per-cell ones. Only cells that every unit
// of both sides measured can be averaged that way; the others are listed.
struct RangeComparison {
  uint64_t lo = 0, hi = UINT64_MAX;   // inclusive
  std::vector<uint64_t> cells;        // averaged
  std::vector<uint64_t> unevenCells;  // in range and measured on both sides, but not by every unit
  std::optional<RatioInterval> interval;
  std::string whyNoInterval;
  // Per range: when the truth is "no difference", wrong at most 1 - confidence of the time.
  Verdict verdict = Verdict::kInsufficient;
  int faster = 0, slower = 0, noDifference = 0, insufficient = 0;  // per-cell verdicts in range
};

struct UnitComparison {
  std::vector<CellComparison> cells;  // every cell measured on both sides, ascending
  RangeComparison range;
};

// The cells of A and B, compared; the range [lo, hi] summarised. Sides with fewer than settings.minUnits units
// at a cell get no verdict there (the numbers are still given).
UnitComparison compareUnits(const std::vector<Unit>& a, const std::vector<Unit>& b, uint64_t lo, uint64_t hi,
                            const Settings& settings);

// The values of every unit that measured `cell`.
std::vector<double> valuesAt(const std::vector<Unit>& units, uint64_t cell);

// exp(mean(log values)); values must be positive and not empty.
double geometricMean(const std::vector<double>& values);

}  // namespace nccl_roce::verdicts

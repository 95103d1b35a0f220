// `sweep compare A B`: per series and size, the ratio of median times B/A over replicates with a bootstrap
// confidence interval, a verdict, and a summary over the inference range (16 KiB - 64 MiB by default).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/sweep/sample_set.h"

namespace nccl_roce::sweep {

enum class Verdict { kFaster, kSlower, kNoDifference, kInsufficient };
// "faster" (B is faster than A), "slower", "no difference", "insufficient replicates"
const char* verdictName(Verdict verdict);

struct CompareOptions {
  Placement placement = Placement::kOutOfPlace;
  double confidence = 0.95;
  int resamples = 2000;
  // A verdict other than "no difference" also needs |ratio - 1| >= minEffect: differences of a fraction of a
  // percent are real at large sizes yet below what nccl-tests' 4 printed digits and any deployment care about.
  double minEffect = 0.01;
  // Fewer replicates than this on either side: "insufficient replicates" (the numbers are still shown).
  int minReplicates = 2;
  uint64_t rangeLo = uint64_t{16} << 10;  // inference range, inclusive
  uint64_t rangeHi = uint64_t{64} << 20;
};

struct SizeComparison {
  uint64_t size = 0;
  int nA = 0, nB = 0;
  double medianA = 0, medianB = 0;  // us
  double ratio = 0;                 // medianB / medianA: below 1 means B is faster
  double ciLow = 0, ciHigh = 0;
  Verdict verdict = Verdict::kInsufficient;
};

struct RangeSummary {
  uint64_t lo = 0, hi = 0;
  int sizes = 0;  // sizes in range measured on both sides with enough replicates
  int faster = 0, slower = 0, noDifference = 0, insufficient = 0;
  // Geometric mean of the per-size ratios, with its bootstrap interval (same draws as the sizes').
  std::optional<double> geomeanRatio, ciLow, ciHigh;
  Verdict verdict = Verdict::kInsufficient;
  std::optional<uint64_t> worstSize, bestSize;  // largest and smallest ratio in range
};

struct SeriesComparison {
  SeriesKey key;
  int runsA = 0, runsB = 0;
  std::vector<SizeComparison> sizes;
  std::vector<uint64_t> onlyInA, onlyInB;
  // Sizes that not every replicate measured ("replicates with different size lists").
  std::vector<std::string> unevenSizes;
  RangeSummary summary;
};

struct Comparison {
  std::string labelA, labelB;
  CompareOptions options;
  std::vector<SeriesComparison> series;
  std::vector<std::string> notes;  // from sample collection, and series found on one side only
};

// Verdict for one interval and point estimate under the options' minimum effect.
Verdict verdictFor(double ratio, double ciLow, double ciHigh, double minEffect);

Comparison compareSweeps(const SampleSet& a, const SampleSet& b, const CompareOptions& options);

}  // namespace nccl_roce::sweep

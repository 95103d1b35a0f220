// The ratio B/A of two sides' geometric means, with a Welch t interval computed on the log scale.
//
// Why Welch t and not a bootstrap: with the 3-10 replicate runs people really make, a percentile bootstrap has
// a handful of distinct values and covers the truth far less often than it claims; the t interval accounts for
// estimating the spread from few values, and the logarithm turns run-level slowdowns (multiplicative) into
// shifts. The calibration that shows both is in tests/calibration and docs/statistics.md.
#pragma once

#include <vector>

#include "common/status.h"

namespace nccl_roce::verdicts {

struct RatioInterval {
  int nA = 0, nB = 0;
  double ratio = 1;             // exp(mean log b - mean log a): below 1 means B is faster
  double low = 1, high = 1;     // the two-sided interval at the requested confidence
  double degreesOfFreedom = 0;  // Welch-Satterthwaite
  double pBFaster = 1;          // one-sided p-value against "B is not faster than A" (true ratio >= 1)
  double pBSlower = 1;          // one-sided p-value against "B is not slower than A" (true ratio <= 1)
};

// The values of each side are positive measurements of independent units (one per replicate run or
// communicator). kFailedPrecondition, with a sentence saying why, when no interval can honestly be given:
// fewer than two values on a side, a value that is not a positive finite number, or no spread at all on either
// side (identical values, as from a log copied twice).
StatusOr<RatioInterval> ratioOfGeometricMeans(const std::vector<double>& a, const std::vector<double>& b,
                                              double confidence);

}  // namespace nccl_roce::verdicts

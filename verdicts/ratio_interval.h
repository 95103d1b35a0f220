// The ratio B/A of two sides' geometric means, with a Welch t interval computed on the log scale.
//
// Why Welch t and not a bootstrap: with the 3-10 replicate runs people really make, a percentile bootstrap has
// a handful of distinct values and covers the truth far less often than it claims; the t interval accounts for
// estimating the spread from few values, and the logarithm turns run-level slowdowns (multiplicative) into
// shifts. The calibration that shows both is in tests/calibration and docs/statistics.md.
//
// Why the smaller side's degrees of freedom: Welch's statistic compared with Student's t on min(nA, nB) - 1
// degrees of freedom never rejects more often than its nominal rate, whatever the two sides' sizes and spreads
// (Hsu's procedure; Mickey and Brown 1966). Welch-Satterthwaite's estimated degrees of freedom do at small
// unequal splits: a canary of 2 communicators against 30 gets false verdicts 12.6% of the time at a nominal 5%,
// because a small side whose few values happen to lie close together makes both the interval narrow and the
// estimated degrees of freedom large. The price is width where sides are balanced and small: 7% at 10 units a
// side, 3% at 20 (docs/statistics.md, "Small and unequal sides").
#pragma once

#include <vector>

#include "common/status.h"

namespace nccl_roce::verdicts {

// How many degrees of freedom the t quantiles use.
enum class DegreesOfFreedom {
  kSmallerSide,        // min(nA, nB) - 1: what every verdict uses
  kWelchSatterthwaite  // estimated from the spreads: the method before, kept for the calibration suite to show
                       // that its bounds catch it (no command offers it)
};

struct RatioInterval {
  int nA = 0, nB = 0;
  double ratio = 1;             // exp(mean log b - mean log a): below 1 means B is faster
  double low = 1, high = 1;     // the two-sided interval at the requested confidence
  double degreesOfFreedom = 0;  // of the t quantiles: min(nA, nB) - 1 unless told otherwise
  double pBFaster = 1;          // one-sided p-value against "B is not faster than A" (true ratio >= 1)
  double pBSlower = 1;          // one-sided p-value against "B is not slower than A" (true ratio <= 1)
};

// The values of each side are positive measurements of independent units (one per replicate run or
// communicator). kFailedPrecondition, with a sentence saying why, when no interval can honestly be given:
// fewer than two values on a side, a value that is not a positive finite number, or no spread at all on either
// side (identical values, as from a log copied twice).
StatusOr<RatioInterval> ratioOfGeometricMeans(const std::vector<double>& a, const std::vector<double>& b,
                                              double confidence,
                                              DegreesOfFreedom method = DegreesOfFreedom::kSmallerSide);

}  // namespace nccl_roce::verdicts

// The ratio of two arms' geometric means from paired differences (a switchback experiment's windows,
// docs/statistics.md "Switchback verdicts"): in each window both arms ran against the same load, and the window's
// difference of mean log durations is one value; windows are the units. A one-sample t interval on the mean
// difference, with windows - 1 degrees of freedom.
#pragma once

#include <vector>

#include "common/status.h"
#include "verdicts/ratio_interval.h"

namespace nccl_roce::verdicts {

// Paired differences by their sufficient statistics: how many, their sum and the sum of their squares, in units
// of `scale` natural-log units each (log-histogram bins are ln(gamma) apart). Windows are fractional where the
// ranks of one communicator were averaged.
struct PairedSums {
  double windows = 0, sum = 0, sumSq = 0;

  void add(const PairedSums& o) {
    windows += o.windows;
    sum += o.sum;
    sumSq += o.sumSq;
  }
};

// B/A: exp(scale x mean difference) and its interval at `confidence`. kFailedPrecondition, saying why, with fewer
// than two windows or no spread at all.
StatusOr<RatioInterval> pairedRatio(const PairedSums& sums, double scale, double confidence);

// The geometric mean of several cells' ratios (a summary over size buckets): their log ratios averaged, the
// standard error the average of theirs, which bounds the true one whatever the cells' correlation (Cauchy-Schwarz),
// so the summary is never narrower than its data allow; degrees of freedom from the cell with the fewest windows.
StatusOr<RatioInterval> meanOfPairedRatios(const std::vector<PairedSums>& cells, double scale, double confidence);

}  // namespace nccl_roce::verdicts

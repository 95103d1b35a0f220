// A ratio of two arms' geometric means from units whose arms were drawn by fair coin flips: a switchback's rounds
// of turns at capture, where the schedule drew which turn of the round each arm got (docs/statistics.md,
// "Collectives replayed from CUDA graphs"). Each unit gives one difference d of mean log durations, arm minus
// reference. When the arm makes no difference, d was as likely to come out as -d, whatever the unit held (which
// positions of which graphs, which batch sizes, what load): the positions' own speeds are fixed, and only the
// draw decided the sign. A test that counts exactly those sign flips is exact whatever those speeds are, where a t
// test is not: a few units that hold a slow position (the first all-reduce of a decode step) dominate a mean and
// its spread, and the t statistic then takes few distinct values, exceeding its nominal rate (7-12% at 5%).
//
// The test is Wilcoxon's signed-rank statistic on the units' differences, whose distribution under the sign flips
// is computed exactly (normal beyond kExactUnits units, or where differences tie). The estimate is Hodges and
// Lehmann's, the median of the pairwise averages (d_i + d_j) / 2, and the interval is the exact one that inverts
// the same test: a unit with a huge difference moves neither by more than one rank. Intervals are exponentiated
// into ratios, as every verdict's.
#pragma once

#include <vector>

#include "common/status.h"
#include "verdicts/ratio_interval.h"

namespace nccl_roce::verdicts {

// Where the exact distribution of the statistic is computed (a table of n(n+1)/2 + 1 counts); the normal
// approximation, with continuity correction, beyond.
inline constexpr int kExactUnits = 80;

// The fewest units with which any two-sided test over fair coin flips can reach `confidence`: no outcome of n
// flips is rarer than 2 / 2^n, so 6 at 95%, 8 at 99%. With fewer, a unit-level verdict is "insufficient data".
int fewestUnitsFor(double confidence);

// exp(scale x estimate) over `differences` (one per unit, in units of `scale` natural-log units), with the interval
// at `confidence`; pBFaster and pBSlower are the one-sided p-values of "no difference". nA = nB = the units.
// kFailedPrecondition, saying why, with fewer than fewestUnitsFor(confidence) units or a difference that is not
// finite.
StatusOr<RatioInterval> signedRankRatio(const std::vector<double>& differences, double scale, double confidence);

// One shift common to several cells (a summary over size buckets), each cell weighing alike: the sum over cells of
// their standardised signed-rank statistics (van Elteren's stratified test), normal; the estimate is the shift
// where that sum is 0 and the interval the shifts it does not reject. One cell alone is signedRankRatio's. Units
// of different cells must be independent draws.
StatusOr<RatioInterval> stratifiedSignedRankRatio(const std::vector<std::vector<double>>& cells, double scale,
                                                  double confidence);

}  // namespace nccl_roce::verdicts

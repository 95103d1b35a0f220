// `sweep fit`: forced-config sweeps (one configuration per run, with replicates, plus NCCL's default) ->
// per size, the fastest configuration that beats the default beyond the noise, else the default; adjacent
// sizes with the same choice merged into buckets that cover every size from 0 up (past the largest measured
// size too). fit_policy_text.h writes the result as a policy file (docs/policy-format.md).
//
// False wins are controlled across everything one fit tests (every configuration at every size of every
// series) by the false discovery rate (Benjamini-Hochberg): among the rules a fit writes, the expected share
// that are not really faster is at most 1 - confidence, and when no configuration is faster anywhere the
// chance that it writes any rule at all is at most that. The calibration (docs/statistics.md) chose this over a
// family-wise bound, which at the same replicate count finds half as many real gains.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/sweep/forced_config.h"
#include "nccl-tests-integration/sweep/perf_log.h"
#include "nccl-tests-integration/sweep/sample_set.h"
#include "verdicts/ratio_interval.h"
#include "verdicts/settings.h"
#include "verdicts/winner_selection.h"

namespace nccl_roce::sweep {

// The fewest replicate runs per configuration fit accepts. The calibration (docs/statistics.md: 9
// configurations x 20 sizes, 3% run and 2% size noise) finds 10-15% gains at 38% of the sizes that have one
// with 5 replicates, 90% with 7 and all with 10, and keeps false rules below 1% from 4 on; below 5 it finds
// almost nothing (6% with 4).
inline constexpr int kFitMinReplicates = 5;

struct FitOptions {
  Placement placement = Placement::kOutOfPlace;
  // A configuration replaces the default only when faster beyond the noise AND by at least minEffect: switching
  // algorithms has costs the sweep does not see (first-use connection set-up, other sizes' buffers).
  verdicts::Settings verdicts{0.95, 0.02, kFitMinReplicates};
  std::optional<int> nodes;  // overrides the device list (e.g. ranks on one host with distinct NCCL_HOSTID)
  std::string policyName = "fitted";
  // Not a command-line option: the calibration suite turns the control off to show that its bounds catch that.
  verdicts::FalseWinControl falseWinControl = verdicts::FalseWinControl::kFalseDiscoveryRate;
};

// One measured size: the default and the configuration chosen, with the evidence.
struct SizeDecision {
  uint64_t size = 0;
  double defaultUs = 0;  // geometric mean over the default's replicates
  int defaultReplicates = 0;
  std::optional<ForcedConfig> choice;  // nullopt: keep NCCL's default
  double timeUs = 0;                   // the choice's (the default's when none)
  int replicates = 0;
  double ratio = 1, ciLow = 1, ciHigh = 1;  // choice / default, with its interval at the nominal confidence
  std::string fastestOther;  // the fastest configuration when it did not beat the default, for the report
  double fastestOtherRatio = 1;
};

// Consecutive sizes with the same choice. lo/hi are inclusive bounds of the sizes the rule covers.
struct FitBucket {
  std::optional<ForcedConfig> choice;
  uint64_t lo = 0, hi = UINT64_MAX;
  uint64_t firstMeasured = 0, lastMeasured = 0;
  int sizes = 0;
  double bestRatio = 1, worstRatio = 1, widestCiHigh = 1;  // across the bucket's sizes
};

struct FitSeries {
  SeriesKey key;
  int nodes = 0;
  std::vector<ForcedConfig> configs;  // forced configurations measured for this series
  int defaultRuns = 0;
  std::vector<SizeDecision> sizes;
  std::vector<FitBucket> buckets;
};

struct FitResult {
  std::vector<FitSeries> series;
  int challenges = 0;               // configuration x size comparisons made: the family of the control
  std::vector<std::string> notes;   // runs left out and why, sizes without a verdict
  std::vector<std::string> errors;  // nothing can be fitted (no default run, too few replicates, ...)
  bool ok() const { return errors.empty() && !series.empty(); }
};

FitResult fitPolicy(const std::vector<PerfLog>& logs, const FitOptions& options);

// Merges decisions into buckets; boundaries at the arithmetic midpoint between neighbouring measured sizes.
std::vector<FitBucket> mergeBuckets(const std::vector<SizeDecision>& sizes);

}  // namespace nccl_roce::sweep

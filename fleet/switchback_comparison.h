// `nccl-roce ab` for a switchback experiment (docs/ab-testing.md, "Switchback experiments"): every communicator ran
// every arm in turns, so each arm is compared with the reference arm (the experiment's first) inside each
// communicator, by the unit that was randomised:
// - Eager collectives (each asked the tuner when it ran): window by window. In each window and size bucket both
//   arms ran against the same load, and the difference of their mean log durations is one paired value; windows
//   are the unit, communicators add theirs (a communicator's ranks are averaged first, fleet/switchback_ranks.h).
//   Per bucket a one-sample t interval on the mean difference (verdicts/paired_ratio.h); the summary over the
//   range averages the buckets' log ratios, with a standard error that bounds the true one whatever their
//   correlation.
// - Collectives replayed from CUDA graphs (whose arm was drawn once, at capture): a round of turns at capture in
//   one communicator and bucket is the unit (fleet/capture_rounds.h); per bucket a signed-rank interval over the
//   units, exact under the draw (verdicts/signed_rank.h), "insufficient data" below the units any fair draw needs;
//   the summary a stratified one, each bucket weighing alike.
// Where a communicator's profiler did not tell replays apart (NCCL before 2.28, statistics of schema /3), all its
// timed collectives are in windows, and the report says that replays there can bias those verdicts.
//
// Error rates, as for the per-communicator design: a per-bucket verdict, and each arm's summary, is wrong at most
// 1 - confidence of the time when the arm makes no difference (tests/calibration/switchback_calibration_test.cc,
// with drift, correlated neighbours, stragglers and carry-over; tests/calibration/capture_calibration_test.cc with
// vLLM's captures and replays and position effects inside the graphs).
#pragma once

#include "common/status.h"
#include "fleet/ab_comparison.h"
#include "fleet/fleet.h"

namespace nccl_roce::fleet {

// Whether the fleet's communicators ran a switchback (and so need compareSwitchback).
bool isSwitchbackFleet(const Fleet& fleet);

// The same report as compareArms' (design "switchback"). `options.control` must be the reference arm or left at
// its default: the windows pair every arm with the reference only. kFailedPrecondition when no communicator has
// switchback timings.
StatusOr<AbReport> compareSwitchback(const Fleet& fleet, const AbOptions& options);

// The log-histogram bin's width in natural-log units: what a paired difference of mean bins is multiplied by.
double logBinWidth();

}  // namespace nccl_roce::fleet

// `nccl-roce ab` for a switchback experiment (docs/ab-testing.md, "Switchback experiments"): every communicator ran
// every arm in turns, so each arm is compared with the reference arm (the experiment's first) inside each
// communicator, window by window: in each window and size bucket both arms ran against the same load, and the
// difference of their mean log durations is one paired value. Windows are the unit; communicators add theirs (a
// communicator's ranks are averaged first, fleet/switchback_ranks.h). Per bucket a one-sample t interval on the
// mean difference (verdicts/paired_ratio.h); the summary over the range averages the buckets' log ratios, with a
// standard error that bounds the true one whatever their correlation.
//
// Error rates, as for the per-communicator design: a per-bucket verdict, and each arm's summary, is wrong at most
// 1 - confidence of the time when the arm makes no difference (tests/calibration/switchback_calibration_test.cc,
// with drift, correlated neighbours, stragglers and carry-over).
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

// The statistical settings every A/B verdict of the project is decided with. `sweep compare`, `sweep fit` and
// `ab` share this one struct (each with its own defaults), and the CLI declares its flags once
// (cli/verdict_options.h).
#pragma once

#include "verdicts/ratio_interval.h"

namespace nccl_roce::verdicts {

struct Settings {
  // Confidence level of every interval. 1 - confidence is the error rate a verdict controls; what it is a rate
  // of (per size, per summary, per fitted policy) is stated where the verdict is made.
  double confidence = 0.95;
  // A verdict other than "no difference" also needs the estimate at least this far from 1: differences of a
  // fraction of a percent can be real at large sizes yet below what any deployment cares about.
  double minEffect = 0.01;
  // Units (replicate runs, communicators) a side needs before it gets an interval. Two is the fewest a spread
  // can be estimated from; fit raises it to what its calibration shows it needs.
  int minUnits = 2;
  // Not a command-line option: the calibration suite sets the method before (Welch-Satterthwaite) to show that
  // its bounds catch it.
  DegreesOfFreedom degreesOfFreedom = DegreesOfFreedom::kSmallerSide;
};

}  // namespace nccl_roce::verdicts

// How long an A/B experiment needs before a verdict (`nccl-roce ab plan`, docs/ab-testing.md "Planning an
// experiment"), for both designs, from the same t statistics the verdicts use: the chance that a two-sided t test
// at the verdicts' confidence finds a true effect, as traffic accrues.
// - Per-communicator design: the unit is a communicator; its value is the geometric mean of its collectives, whose
//   log has variance between^2 + noise^2 / n after n collectives. Its arms' communicators are what the fleet
//   creates (each arm's share of them), so past some point more time helps no more: only more communicators do.
// - Switchback: the unit is a window inside a communicator; its value is the difference of the arms' mean log
//   durations in the window, variance noise^2 (1/n_arm + 1/n_reference) with n what each arm timed in the window
//   (after the washout). Windows accrue with time in every communicator, and placement cancels inside each.
// Neighbouring collectives are taken as independent and drift as absent: correlated noise makes both designs need
// more; the calibration suite (tests/calibration/switchback_calibration_test.cc) compares these predictions
// with simulated fleets.
#pragma once

#include <string>
#include <vector>

namespace nccl_roce::verdicts {

// The chance that a two-sided t test at `confidence` on `df` degrees of freedom rejects "no difference" on the
// side of a true log-ratio `logEffect` estimated with `standardError` (the noncentral t distribution).
double powerOfT(double logEffect, double standardError, double df, double confidence);

struct PlanInputs {
  // The experiment: each arm's share of the communicators (per-communicator design) or of the turns
  // (switchback); the first is the reference. The effect to detect, arm / reference - 1 (either sign).
  std::vector<double> shares = {0.5, 0.5};
  double effect = 0.05;
  double confidence = 0.95, power = 0.8;
  int minUnits = 2;  // units a side needs for an interval (ab: 2 communicators or windows; ab fit: 10)
  // The traffic of one size bucket.
  // Distinct communicators (commIds) carrying the bucket, fleet-wide: the per-communicator design's unit. One whose
  // ranks span several pods (tensor parallel across nodes) counts once, so the answer does not depend on how a
  // LeaderWorkerSet group's pods are counted.
  int communicators = 1;
  double collectivesPerSecond = 100;   // per communicator, in the bucket, that the tuner can change
  double timedPerSecond = 100;         // per communicator, every timed collective (what windows count)
  double noise = 0.10;                 // log-sd of one collective's duration inside a communicator
  double betweenCommunicators = 0.05;  // log-sd of communicators' geometric means (placement, hardware)
  // The switchback's windows: timed collectives per window, and the share of an arm's collectives the washout
  // keeps.
  double window = 128, kept = 1;
};

struct DesignPlan {
  bool feasible = false;
  double seconds = 0;           // until a verdict with the asked power
  double units = 0;             // the units by then: windows, or communicators of the smallest arm
  std::string why;              // when not feasible: what would make it so
  int communicatorsNeeded = 0;  // per communicator, when not feasible: the fewest communicators that would be
};

// The power each design has after `seconds` (the smallest arm against the reference).
double switchbackPower(const PlanInputs& in, double seconds);
double perCommunicatorPower(const PlanInputs& in, double seconds);

DesignPlan planSwitchback(const PlanInputs& in);
DesignPlan planPerCommunicator(const PlanInputs& in);

}  // namespace nccl_roce::verdicts

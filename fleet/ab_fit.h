// `nccl-roce ab fit`: a tuner policy from a live experiment's fleet statistics (a switchback's: the windows inside
// its communicators are the units instead, fleet/ab_fit_switchback.h). Per node count, collective and
// size bucket, every arm other than the control is a challenge to the control arm, with the communicator as the
// unit (one value per communicator and cell: the geometric mean of its collectives there, as `nccl-roce ab`
// computes it); communicators of different node counts never pool. An arm wins a cell when it is faster than
// the control beyond the noise and by at least the minimum effect; among winners the fastest. Its rule is the
// configuration that arm's tuner actually ran there, read from the decisions the statistics files hold; neighbouring
// measured buckets with the same winner and configuration merge into one rule.
//
// False wins are controlled across every challenge of one fit by the false discovery rate (Benjamini-Hochberg, as
// `sweep fit`): among the rules written, the expected share that are not really faster is at most
// 1 - confidence, and with no real gain anywhere the fit writes no rule at least that often (calibrated in
// tests/calibration/ab_fit_calibration_test.cc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"
#include "verdicts/ratio_interval.h"
#include "verdicts/settings.h"
#include "verdicts/winner_selection.h"

namespace nccl_roce::fleet {

// The fewest communicators of an arm, and of the control, in a size bucket for a challenge there. The calibration
// (docs/ab-testing.md, "Fitting a policy from the fleet": 3 arms, 13 buckets, fleet noise) finds 8% gains in 92%
// and 10% gains in 99% of the buckets that have one from this count on, and the share of false rules at or below
// the nominal rate; with 8 per arm, 79% and a share of 6%. 5% gains need about 20 per arm.
inline constexpr int kAbFitMinCommunicators = 10;

// The fewest collectives a communicator needs in a bucket to count there for ab fit. A communicator's value is the
// geometric mean of its collectives, and a rare straggler (a page fault, a preempted proxy thread: 2% of
// collectives 10x slow) moves the mean of 10 by a quarter, which makes communicators' values right-skewed and the
// one-sided test liberal: null fleets got a rule 6.2% of the time at 10 collectives, 2.8% at 20, 1.4% at 40
// (docs/ab-testing.md). `ab`'s two-sided verdicts stay within their rate at 10.
inline constexpr uint64_t kAbFitMinCollectives = 20;

// An arm's calls in a cell must have been decided this often by one rule-made configuration for that
// configuration to be what the arm ran there.
inline constexpr double kAbFitRuleShare = 0.9;

struct AbFitOptions {
  std::string control = "control";
  uint64_t minCollectives = kAbFitMinCollectives;  // a communicator counts in a cell only with this many of its
                                                   // collectives there
  // A rule needs the arm at least 2% faster: switching algorithms has costs a bucket's mean does not show
  // (first-use connection set-up, buffers of other sizes), as in `sweep fit`.
  verdicts::Settings settings{0.95, 0.02, kAbFitMinCommunicators};
  std::string policyName;  // default: "<experiment>-fit"
  // Not a command-line option: the calibration suite turns the control off to show that its bounds catch that.
  verdicts::FalseWinControl falseWinControl = verdicts::FalseWinControl::kFalseDiscoveryRate;
};

// The configuration an arm's tuner ran in a cell when its rules decided it.
struct ArmConfiguration {
  telemetry::Choice choice;  // an algorithm or protocol of -1: the rule left it to NCCL and NCCL's pick is unknown
  std::string rule;          // the arm policy's deciding rule
  double share = 0;          // of the arm's calls in the cell

  std::string describe() const;  // "Ring/LL", "Tree/Simple, 8 channels", "Ring/Simple, chunk 256K"
};

struct ArmChallenge {
  std::string arm;
  verdicts::RatioInterval vsControl;  // arm / control: below 1 means the arm is faster
  uint64_t collectivesControl = 0, collectivesArm = 0;
  std::optional<ArmConfiguration> configuration;  // none: what the arm ran there cannot be written as a rule
  std::string whyNoConfiguration;
};

// One (node count, collective, size bucket) where the control and at least one arm had enough communicators.
struct CellFit {
  int nodes = 0;
  uint64_t cell = 0;  // collective and bucket (fleet_records.h)
  int communicatorsControl = 0;
  std::vector<ArmChallenge> challenges;  // the arms with enough communicators here
  std::optional<size_t> winner;          // into challenges: the fastest that beat the control beyond the noise
  bool ruled() const { return winner && challenges[*winner].configuration.has_value(); }
};

// Neighbouring buckets of one node count and collective won by one arm with one configuration.
struct FittedRule {
  int nodes = 0, collective = 0, firstBucket = 0, lastBucket = 0;
  std::string arm;
  ArmConfiguration configuration;
  std::vector<size_t> cells;  // into AbFit::cells, one per bucket, ascending
};

struct AbFit {
  std::string experiment, control, policyName;
  std::string design;  // "switchback": windows inside communicators are the units (fleet/ab_fit_switchback.h)
  std::map<std::string, int> communicatorsPerArm;  // timed communicators with a known node count
  std::vector<CellFit> cells;                      // by node count, then cell
  std::vector<FittedRule> rules;
  int challenges = 0;                 // arm x cell comparisons made: the family the false discovery rate is over
  std::vector<std::string> errors;    // from the fleet: communicators left out, named
  std::vector<std::string> notes;     // groups left out, winners that cannot be rules, the control's own rules
  std::vector<SkippedInput> skipped;  // from the fleet: inputs not read
  AbFitOptions options;
};

// kFailedPrecondition with what to collect when nothing can be fitted: no control arm, no other arm, or no cell
// where the control and some arm both have options.settings.minUnits communicators.
StatusOr<AbFit> fitArms(const Fleet& fleet, const AbFitOptions& options);

// What an arm ran in a cell, from its calls' decisions there (over its communicators): the configuration its
// rules chose for at least kAbFitRuleShare of the calls, else nullopt with the reason in *why.
std::optional<ArmConfiguration> configurationOf(const DecisionCounts& calls, std::string* why);

// The rules of a fit's cells: consecutive measured buckets merge when one arm won both with one configuration.
std::vector<FittedRule> mergeRules(const std::vector<CellFit>& cells);

}  // namespace nccl_roce::fleet

// Choosing, per group, the candidate that beats a control beyond the noise, with false wins controlled across
// every challenge made at once (sweep fit: every forced configuration at every size of every series; ab fit:
// every arm in every size bucket). Testing each at 95% alone would let some "win" by chance every time.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "verdicts/ratio_interval.h"
#include "verdicts/settings.h"

namespace nccl_roce::verdicts {

struct Challenge {
  size_t group = 0;         // what a winner is chosen for: a size of a series, a size bucket
  RatioInterval vsControl;  // candidate / control: below 1 means the candidate is faster
};

enum class FalseWinControl {
  kFamilyWise,          // Holm: the chance of any false win among all challenges is at most 1 - confidence
  kFalseDiscoveryRate,  // Benjamini-Hochberg: the expected share of false wins among wins is at most that
  kNone                 // each challenge alone at 1 - confidence: what the two above exist to prevent; no command
                        // uses it, the calibration suite does, to show that its bounds catch a fit without control
};

// For each group, the index of its winning challenge, or nullopt when none wins. A challenge can win when the
// procedure rejects "the candidate is not faster" (one-sided, at level 1 - confidence over the whole family)
// and its ratio is at most 1 - minEffect; among a group's possible winners the smallest ratio wins.
std::vector<std::optional<size_t>> selectWinners(const std::vector<Challenge>& challenges, size_t groups,
                                                 const Settings& settings, FalseWinControl control);

}  // namespace nccl_roce::verdicts

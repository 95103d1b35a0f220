#include "verdicts/winner_selection.h"

#include "verdicts/multiple_testing.h"

namespace nccl_roce::verdicts {

std::vector<std::optional<size_t>> selectWinners(const std::vector<Challenge>& challenges, size_t groups,
                                                 const Settings& settings, FalseWinControl control) {
  std::vector<double> pValues;
  pValues.reserve(challenges.size());
  for (const Challenge& c : challenges) pValues.push_back(c.vsControl.pBFaster);
  double level = 1 - settings.confidence;
  std::vector<bool> rejected(pValues.size());
  if (control == FalseWinControl::kFamilyWise) {
    rejected = holmRejections(pValues, level);
  } else if (control == FalseWinControl::kFalseDiscoveryRate) {
    rejected = benjaminiHochbergRejections(pValues, level);
  } else {
    for (size_t i = 0; i < pValues.size(); ++i) rejected[i] = pValues[i] <= level;
  }
  std::vector<std::optional<size_t>> winners(groups);
  for (size_t i = 0; i < challenges.size(); ++i) {
    const Challenge& c = challenges[i];
    if (!rejected[i] || c.vsControl.ratio > 1 - settings.minEffect || c.group >= groups) continue;
    std::optional<size_t>& winner = winners[c.group];
    if (!winner || c.vsControl.ratio < challenges[*winner].vsControl.ratio) winner = i;
  }
  return winners;
}

}  // namespace nccl_roce::verdicts

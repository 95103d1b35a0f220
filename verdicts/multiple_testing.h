// Control of false findings when many hypotheses are tested at once (fit tests every configuration at every
// size; ab fit every arm in every bucket).
#pragma once

#include <vector>

namespace nccl_roce::verdicts {

// Holm's step-down procedure: which hypotheses to reject so that the chance of rejecting any true one is at
// most alpha (family-wise error), whatever the dependence between the tests.
std::vector<bool> holmRejections(const std::vector<double>& pValues, double alpha);

// Benjamini-Hochberg step-up: which to reject so that the expected share of true hypotheses among the
// rejected ones is at most q (false discovery rate), for independent or positively dependent tests.
std::vector<bool> benjaminiHochbergRejections(const std::vector<double>& pValues, double q);

}  // namespace nccl_roce::verdicts

// NCCL_ROCE_CALIBRATION_RUNS (docs/environment.md): how many simulated runs a calibration test that has a long
// version makes. The test command runs the short one; docs/statistics.md reports the long one.
#pragma once

#include <cstdlib>

namespace nccl_roce::testing {

// The variable's value when it is a positive number, else `fallback` (the test command's count).
inline int calibrationRuns(int fallback) {
  const char* set = std::getenv("NCCL_ROCE_CALIBRATION_RUNS");
  const int runs = set != nullptr ? std::atoi(set) : 0;
  return runs > 0 ? runs : fallback;
}

}  // namespace nccl_roce::testing

// Simulated forced-configuration sweeps for calibrating `sweep fit`: NCCL's default and nine forced
// configurations over 20 sizes, with a known true ratio of every configuration to the default at every size.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "nccl-tests-integration/sweep/fit.h"
#include "nccl-tests-integration/sweep/perf_log.h"
#include "tests/calibration/simulation.h"

namespace nccl_roce::verdicts::calibration {

struct FitScenario {
  std::vector<uint64_t> sizes;               // 1 KiB .. 512 MiB
  std::vector<sweep::ForcedConfig> configs;  // the nine forced configurations
  // True time of configuration c at size index i, relative to the default.
  std::function<double(size_t config, size_t size)> trueRatio;
};

// Every configuration ties the default everywhere: any rule a fit writes is a false win.
FitScenario nullScenario();
// Tree/LL 15% faster below 32K (and 30% slower above), Ring/Simple/16 channels 10% faster from 16M (20% slower
// below), Ring/LL128 5% slower everywhere, the other six tie the default.
FitScenario mixedScenario();

// One simulated sweep: `replicates` runs of the default (element 0) and of each configuration (1..9).
std::vector<std::vector<Unit>> simulateSides(const FitScenario& scenario, int replicates, const Noise& noise,
                                             Simulator& simulator);
// The same sweep as nccl-tests logs carrying each run's configuration, as `sweep fit` reads them.
std::vector<sweep::PerfLog> asLogs(const FitScenario& scenario, const std::vector<std::vector<Unit>>& sides);

struct FitOutcome {
  bool anyFalseRule = false;  // some size chose a configuration that is not truly faster
  int rules = 0, falseRules = 0;
  int winnableSizes = 0, won = 0;  // sizes where some configuration is truly faster; of those, chosen one that is
};
// chosen[i]: the configuration index chosen at size i, or nullopt for NCCL's default.
FitOutcome judgeChoices(const std::vector<std::optional<size_t>>& chosen, const FitScenario& scenario);
FitOutcome judgeFit(const sweep::FitResult& fit, const FitScenario& scenario);

}  // namespace nccl_roce::verdicts::calibration

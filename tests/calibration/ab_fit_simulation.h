// Simulated exploration fleets for calibrating `nccl-roce ab fit`: a control arm where NCCL decides, and arms
// that each force one configuration by a rule ("explore ring/ll", ...) in every bucket, with a known best arm per
// bucket. The noise is the fleet simulation's (fleet_simulation.h): 5% per communicator, 2% per bucket of it,
// 10% per collective.
#pragma once

#include <string>
#include <vector>

#include "fleet/ab_fit.h"
#include "tests/calibration/fleet_simulation.h"

namespace nccl_roce::fleet::calibration {

struct ExploreArm {
  std::string name;  // "explore-ring-ll"
  std::string rule;  // the rule of its policy that decides: "explore ring/ll"
  int algorithm = -1, protocol = -1;
};

// explore-ring-ll (Ring/LL), explore-ring-simple (Ring/Simple), explore-tree-ll (Tree/LL).
const std::vector<ExploreArm>& exploreArms();

// What NCCL chose for the control arm in the simulation: Ring/LL128 everywhere.
inline constexpr int kControlAlgorithm = 1, kControlProtocol = 1;

// `perArm` communicators of each explore arm, `control` of the control, 13 buckets (16K..128M), 2 nodes, 2 ranks
// timing 40 collectives per bucket each. The
// truth, with `gain` the share by which the best arm is faster (0.08: 8%):
//   16K, 32K, 64K:   explore-ring-ll faster        128K, 256K: explore-tree-ll faster
//   16M, 32M:        explore-ring-simple faster
//   512K: ring-ll 5% slower; 1M: ring-simple 4% slower; 4M: tree-ll 5% slower; 2M, 8M, 64M: all tie
// so 7 buckets have a best arm and 6 have none.
FleetSpec explorationFleet(int perArm, int control, double gain);

// The arm truly fastest in a bucket, or "" when no arm is faster than the control there.
std::string bestArm(const FleetSpec& spec, int bucket);

// The fleet's records (as simulateFleet), each rank with the decisions its tuner made: the control's NCCL
// choice, each explore arm's rule, one call per timed collective.
std::vector<CommunicatorRecord> simulateExploration(const FleetSpec& spec);

struct FitTally {
  int fits = 0, refused = 0, fitsWithRules = 0;
  int rules = 0, falseRules = 0;       // per bucket with a rule; false: its arm is not truly faster there
  double falseShareSum = 0;            // of each fit's false share (0 with no rule): its mean is the FDR
  int gainBuckets = 0, found = 0;      // buckets with a truly faster arm; of those, ruled with the best arm
  int nullBuckets = 0, nullRuled = 0;  // buckets with no faster arm; of those, given a rule
  double falseDiscoveryRate() const { return fits > 0 ? falseShareSum / fits : 0; }
};

// `fleets` fits of `spec` with seeds from `firstSeed`, judged against the truth.
FitTally runFits(FleetSpec spec, int fleets, uint64_t firstSeed, const AbFitOptions& options);
// The same fleets fitted with each of `options` (a method and a miscalibrated one on the same data).
std::vector<FitTally> runFits(FleetSpec spec, int fleets, uint64_t firstSeed, const std::vector<AbFitOptions>& options);

}  // namespace nccl_roce::fleet::calibration

// Simulated fleets with a known truth, for calibrating `nccl-roce ab`: communicators assigned to arms, each
// timing many collectives per size bucket on each of its ranks, with noise where real fleets have it: a
// communicator's placement slows or speeds all its collectives by a lognormal factor, each bucket of it by its
// own, and each collective by more (heavy-tailed on request). An arm's true effect is a factor per bucket.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fleet/fleet_records.h"

namespace nccl_roce::fleet::calibration {

struct FleetSpec {
  std::map<std::string, int> communicatorsPerArm{{"control", 20}, {"candidate", 20}};
  std::vector<int> buckets{14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};  // 16K .. 64M-128M
  int ranks = 2;
  int nodes = 2;                    // every communicator's node count
  int collectivesPerBucket = 100;   // per rank
  double communicatorSigma = 0.05;  // log-scale spread of a communicator's factor
  double bucketSigma = 0.02;        // ... of each of its buckets
  double collectiveSigma = 0.10;    // ... of each collective
  bool heavyTails = false;          // Student t (3 dof) collectives instead of normal
  // Stragglers: this share of collectives is slowed by `slowFactor` (a page fault, a preempted proxy thread, a
  // congested link), which makes a communicator's mean right-skewed where it ran few collectives.
  double slowShare = 0;
  double slowFactor = 1;
  // The share of buckets each communicator ran at all: below 1, some communicators miss some buckets, as short-lived
  // ones do, and a summary over every bucket keeps fewer of them.
  double measuredShare = 1;
  std::map<std::string, std::map<int, double>> effects;  // arm -> bucket -> true ratio to control (absent: 1)
  uint64_t seed = 1;

  double effect(const std::string& arm, int bucket) const;
};

// The model's all-reduce time (us) in a bucket: 20 us + its middle size at 40 GB/s.
double baseMicroseconds(int bucket);

// One record per communicator and rank, as the fleet's statistics files give them (experiment "sim").
std::vector<CommunicatorRecord> simulateFleet(const FleetSpec& spec);

// Calls f(commId, arm, rank, bucket, durationsNs) for every communicator, rank and bucket of the fleet: what
// simulateFleet records, for writers that need the raw durations (tests/calibration/synthetic_fleet.cc).
void forEachMeasurement(
    const FleetSpec& spec,
    const std::function<void(uint64_t, const std::string&, int, int, const std::vector<uint64_t>&)>& f);

}  // namespace nccl_roce::fleet::calibration

// Simulated fleets of a two-arm experiment with a known truth, for calibrating switchback verdicts against the
// per-communicator design at the same traffic. Each communicator runs `collectives` all-reduces cycling over
// `buckets` size buckets; a collective's time is its bucket's base time, times:
// - the communicator's placement (lognormal, `betweenCommunicators`), which the per-communicator design must
//   average out across communicators and a switchback cancels inside each;
// - load drift over the run (a sine of amplitude `drift`, three periods: minutes of serving);
// - noise correlated between neighbouring collectives (AR(1) on the log scale, `autocorrelation`, `noise`);
// - stragglers (`stragglerRate` of collectives slowed `stragglerFactor` times);
// - carry-over: the first `carryOverLength` collectives of a bucket after its arm changed take `carryOver` more
//   (only after switching into the candidate when `carryOverIntoCandidate`, the asymmetric case a washout must
//   absorb);
// - each arm's true effect per bucket (`effects`; by default the candidate's `candidateEffect` everywhere).
// A switchback's timings go through the profiler's own SwitchbackTiming (washout, windows, paired sums), and every
// communicator's ranks are written and read back as statistics files, so what is calibrated is what `nccl-roce ab`
// computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/fleet_records.h"

namespace nccl_roce::fleet::calibration {

struct SwitchbackSpec {
  bool switchback = true;  // false: the per-communicator design, communicators alternately control and candidate
  int communicators = 1;
  int ranks = 2;
  int buckets = 4;              // from 64K up, one power of two apart
  uint64_t collectives = 6000;  // per communicator
  uint32_t block = 16, washout = 2;
  int arms = 2;                  // control, candidate, then up to two generated arms ("explore tree/ll", ...)
  double candidateEffect = 1.0;  // the truth: candidate / control in every bucket, unless `effects` says
  std::vector<std::vector<double>> effects;  // per arm, per bucket: arm / control (missing: 1)
  double effect(int arm, int bucket) const {
    if (static_cast<size_t>(arm) < effects.size() && static_cast<size_t>(bucket) < effects[arm].size())
      return effects[static_cast<size_t>(arm)][static_cast<size_t>(bucket)];
    return arm == 1 && effects.empty() ? candidateEffect : 1.0;
  }
  double noise = 0.10, autocorrelation = 0.7, drift = 0.3, betweenCommunicators = 0.05;
  double stragglerRate = 0.002, stragglerFactor = 5;
  double carryOver = 0.3;
  uint32_t carryOverLength = 2;
  bool carryOverIntoCandidate = true;
  uint64_t seed = 1;
};

// The statistics file of each communicator rank (a process of its own), as the plugin writes it.
struct SimulatedFile {
  std::string name;  // pod-<communicator>.<pid>.json
  std::string text;
};
std::vector<SimulatedFile> simulateSwitchbackFiles(const SwitchbackSpec& spec);

// One record per communicator and rank, read back from those files.
std::vector<CommunicatorRecord> simulateSwitchbackFleet(const SwitchbackSpec& spec);

}  // namespace nccl_roce::fleet::calibration

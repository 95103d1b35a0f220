// Simulated A/B data with a known truth, for calibrating the statistics core: sides of units (replicate runs,
// communicators) measuring cells (message sizes), with noise at both levels as real replicate runs show it:
// a whole run slowed or sped up by a lognormal factor, and each size by its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "verdicts/unit_comparison.h"

namespace nccl_roce::verdicts::calibration {

struct Noise {
  double runSigma = 0.03;   // log-scale spread of a unit's factor at every cell
  double cellSigma = 0.02;  // log-scale spread of each cell's own factor
  bool heavyTails = false;  // Student t with 3 degrees of freedom instead of normal, same standard deviation
  double outlierRun = 1.0;  // the first unit of an `withOutlier` side is slowed by this at every cell
  std::string describe() const;
};

using Truth = std::function<double(uint64_t)>;  // the expected time (us) at a cell

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : rng_(seed) {}
  std::vector<Unit> side(int units, const std::vector<uint64_t>& cells, const Truth& truth, const Noise& noise,
                         bool withOutlier = false);
  double draw(double sigma, bool heavyTails);  // a log-scale noise term

 private:
  std::mt19937_64 rng_;
};

// 8 KiB .. 64 MiB in powers of two (14 sizes), as an inference sweep measures them.
std::vector<uint64_t> sweepSizes();
// All-reduce time by a latency-bandwidth model: 20 us + size / 40 GB/s.
double modelTimeUs(uint64_t size);

// How often something happened over trials, and whether that is consistent with a nominal rate: within three
// binomial standard deviations (a deterministic seed makes each test repeatable; the slack makes it honest).
struct Rate {
  long hits = 0, trials = 0;
  void add(bool hit) { hits += hit, ++trials; }
  double value() const { return trials ? static_cast<double>(hits) / static_cast<double>(trials) : 0; }
  double slack(double nominal) const { return 3 * std::sqrt(nominal * (1 - nominal) / static_cast<double>(trials)); }
};

}  // namespace nccl_roce::verdicts::calibration

// The statistics behind `sweep compare` and `sweep fit`: medians over replicates and a percentile bootstrap of
// the ratio of two medians. Deterministic: the generator is our own (same draws on every platform and
// standard library) and every caller passes a fixed seed, so the same logs always give the same report.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nccl_roce::sweep {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and fully specified.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n) without modulo bias; n > 0.
  uint64_t below(uint64_t n);

 private:
  uint64_t state_;
};

// Median of the values (mean of the two middle ones for an even count). values must not be empty.
double median(std::vector<double> values);

// `resamples` draws of median(resample(b)) / median(resample(a)), each resample drawn with replacement and of
// the original size. a and b must not be empty and must hold positive values.
std::vector<double> bootstrapMedianRatios(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                                          uint64_t seed);

// The central `confidence` interval of the draws by nearest rank: the ceil(alpha/2 * n)-th and
// ceil((1 - alpha/2) * n)-th smallest, alpha = 1 - confidence.
std::pair<double, double> percentileInterval(std::vector<double> draws, double confidence);

// Seed for one size of one comparison, so a size's interval does not depend on which other sizes exist.
uint64_t seedFor(uint64_t size, uint64_t salt = 0);

}  // namespace nccl_roce::sweep

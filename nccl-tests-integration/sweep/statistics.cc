#include "nccl-tests-integration/sweep/statistics.h"

#include <algorithm>
#include <cmath>

namespace nccl_roce::sweep {

uint64_t Random::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Random::below(uint64_t n) {
  // Reject the top partial block so every residue is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = next();
  } while (x >= limit);
  return x % n;
}

double median(std::vector<double> values) {
  size_t n = values.size();
  size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (n % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

std::vector<double> bootstrapMedianRatios(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                                          uint64_t seed) {
  Random random(seed);
  std::vector<double> draws;
  draws.reserve(static_cast<size_t>(std::max(resamples, 0)));
  std::vector<double> ra(a.size()), rb(b.size());
  for (int r = 0; r < resamples; ++r) {
    for (double& x : ra) x = a[random.below(a.size())];
    for (double& x : rb) x = b[random.below(b.size())];
    draws.push_back(median(rb) / median(ra));
  }
  return draws;
}

std::pair<double, double> percentileInterval(std::vector<double> draws, double confidence) {
  if (draws.empty()) return {std::nan(""), std::nan("")};
  std::sort(draws.begin(), draws.end());
  double alpha = 1.0 - confidence;
  auto rank = [&](double q) {
    double position = std::ceil(q * static_cast<double>(draws.size()));
    size_t index = position < 1 ? 0 : static_cast<size_t>(position) - 1;
    return draws[std::min(index, draws.size() - 1)];
  };
  return {rank(alpha / 2), rank(1 - alpha / 2)};
}

uint64_t seedFor(uint64_t size, uint64_t salt) {
  Random mix(size * 0x9E3779B97F4A7C15ull ^ (salt + 0x6E63636C2D726F63ull));  // "nccl-roc"
  return mix.next();
}

}  // namespace nccl_roce::sweep

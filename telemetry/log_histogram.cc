#include "telemetry/log_histogram.h"

#include <algorithm>
#include <cmath>

namespace nccl_roce::telemetry {

namespace {

const double kGamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);

// Every bin's upper bound, computed once: bin i holds (bounds[i-1], bounds[i]].
const std::array<double, LogHistogram::kBins>& upperBounds() {
  static const std::array<double, LogHistogram::kBins> bounds = [] {
    std::array<double, LogHistogram::kBins> b{};
    for (int i = 0; i < LogHistogram::kBins; ++i)
      b[static_cast<size_t>(i)] = std::pow(kGamma, i) * LogHistogram::kMinNs;
    return b;
  }();
  return bounds;
}

}  // namespace

double LogHistogram::gamma() {
  return kGamma;
}

int LogHistogram::binOf(uint64_t durationNs) {
  const auto& bounds = upperBounds();
  // Exact: a duration in nanoseconds is below 2^53, so the double holds it whole.
  auto first = std::lower_bound(bounds.begin(), bounds.end() - 1, static_cast<double>(durationNs));
  return static_cast<int>(first - bounds.begin());
}

double LogHistogram::representativeNs(int bin) {
  return 2 * std::pow(kGamma, bin) * kMinNs / (kGamma + 1);
}

double LogHistogram::upperBoundNs(int bin) {
  return upperBounds()[static_cast<size_t>(std::clamp(bin, 0, kBins - 1))];
}

uint64_t LogHistogram::largestNs() {
  return static_cast<uint64_t>(upperBounds()[kBins - 1]);
}

int LogHistogram::record(uint64_t durationNs) {
  const int bin = binOf(durationNs);
  ++bins_[static_cast<size_t>(bin)];
  ++count_;
  sumNs_ += durationNs;
  minNs_ = std::min(minNs_, durationNs);
  maxNs_ = std::max(maxNs_, durationNs);
  if (static_cast<double>(durationNs) < kMinNs) ++below_;
  if (durationNs > largestNs()) ++above_;
  return bin;
}

void LogHistogram::addToBin(int bin, uint64_t n) {
  if (bin < 0 || bin >= kBins || n == 0) return;
  bins_[static_cast<size_t>(bin)] += n;
  count_ += n;
  auto value = static_cast<uint64_t>(representativeNs(bin));
  sumNs_ += value * n;
  minNs_ = std::min(minNs_, value);
  maxNs_ = std::max(maxNs_, value);
}

void LogHistogram::restoreMoments(uint64_t sumNs, uint64_t minNs, uint64_t maxNs) {
  sumNs_ = sumNs;
  minNs_ = minNs;
  maxNs_ = maxNs;
}

void LogHistogram::merge(const LogHistogram& other) {
  for (int i = 0; i < kBins; ++i) bins_[static_cast<size_t>(i)] += other.bins_[static_cast<size_t>(i)];
  count_ += other.count_;
  sumNs_ += other.sumNs_;
  if (other.count_) minNs_ = std::min(minNs_, other.minNs_);
  maxNs_ = std::max(maxNs_, other.maxNs_);
  below_ += other.below_;
  above_ += other.above_;
}

std::optional<double> LogHistogram::quantileNs(double q) const {
  if (count_ == 0) return std::nullopt;
  // Nearest rank: the smallest value with at least ceil(q n) observations at or below it.
  auto rank = static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (int i = 0; i < kBins; ++i) {
    seen += bins_[static_cast<size_t>(i)];
    if (seen >= rank) return representativeNs(i);
  }
  return representativeNs(kBins - 1);
}

std::optional<double> LogHistogram::geometricMeanNs() const {
  return geometricMeanNs(count_, binSum());
}

uint64_t LogHistogram::binSum() const {
  uint64_t sum = 0;
  for (int i = 1; i < kBins; ++i) sum += static_cast<uint64_t>(i) * bins_[static_cast<size_t>(i)];
  return sum;
}

// log(representative(i)) = log(2 kMinNs / (gamma + 1)) + i log(gamma): the mean of the logs is the representative
// value at the mean bin.
std::optional<double> LogHistogram::geometricMeanNs(uint64_t count, uint64_t binSum) {
  if (count == 0) return std::nullopt;
  double meanBin = static_cast<double>(binSum) / static_cast<double>(count);
  return 2 * std::pow(kGamma, meanBin) * kMinNs / (kGamma + 1);
}

std::vector<std::pair<int, uint64_t>> LogHistogram::nonEmptyBins() const {
  std::vector<std::pair<int, uint64_t>> out;
  for (int i = 0; i < kBins; ++i) {
    if (bins_[static_cast<size_t>(i)]) out.emplace_back(i, bins_[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace nccl_roce::telemetry

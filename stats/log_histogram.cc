#include "stats/log_histogram.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace nccl_roce::stats {

namespace {

const double kGamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);
const double kLogGamma = std::log(kGamma);

// Upper bounds of the bins, kMinNs x gamma^i: bin i holds (bound[i-1], bound[i]].
const std::array<double, LogHistogram::kBins>& upperBounds() {
  static const std::array<double, LogHistogram::kBins> bounds = [] {
    std::array<double, LogHistogram::kBins> b{};
    for (int i = 0; i < LogHistogram::kBins; ++i) b[static_cast<size_t>(i)] = std::pow(kGamma, i) * LogHistogram::kMinNs;
    return b;
  }();
  return bounds;
}

}  // namespace

double LogHistogram::gamma() { return kGamma; }

// The profiler bins every collective, so no log() call: the double's exponent and mantissa give log2 within
// 0.09 (log2(1 + m) ~ m), which lands within 4 bins of the answer; the bounds table settles it exactly.
int LogHistogram::binOf(uint64_t durationNs) {
  const auto& bounds = upperBounds();
  const double d = static_cast<double>(durationNs);
  if (!(d > bounds[0])) return 0;
  if (d > bounds[kBins - 1]) return kBins - 1;
  int exponent = 0;
  double mantissa = std::frexp(d / kMinNs, &exponent);  // d / kMinNs = mantissa x 2^exponent, mantissa in [0.5, 1)
  double log2Approx = exponent - 1 + (2 * mantissa - 1);
  static const double kBinsPerLog2 = std::log(2.0) / kLogGamma;
  int bin = std::clamp(static_cast<int>(log2Approx * kBinsPerLog2), 1, kBins - 1);
  while (bin < kBins - 1 && d > bounds[static_cast<size_t>(bin)]) ++bin;
  while (bin > 1 && d <= bounds[static_cast<size_t>(bin - 1)]) --bin;
  return bin;
}

double LogHistogram::representativeNs(int bin) { return 2 * std::pow(kGamma, bin) * kMinNs / (kGamma + 1); }

double LogHistogram::upperBoundNs(int bin) { return upperBounds()[static_cast<size_t>(std::clamp(bin, 0, kBins - 1))]; }

double LogHistogram::largestNs() { return upperBounds()[kBins - 1]; }

void LogHistogram::record(uint64_t durationNs) {
  int bin = binOf(durationNs);
  ++bins_[static_cast<size_t>(bin)];
  ++count_;
  sumNs_ += durationNs;
  minNs_ = std::min(minNs_, durationNs);
  maxNs_ = std::max(maxNs_, durationNs);
  if (static_cast<double>(durationNs) < kMinNs) ++below_;
  if (bin == kBins - 1 && static_cast<double>(durationNs) > largestNs()) ++above_;
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
  if (count_ == 0) return std::nullopt;
  double sum = 0;
  for (int i = 0; i < kBins; ++i) {
    if (bins_[static_cast<size_t>(i)]) {
      sum += static_cast<double>(bins_[static_cast<size_t>(i)]) * std::log(representativeNs(i));
    }
  }
  return std::exp(sum / static_cast<double>(count_));
}

std::vector<std::pair<int, uint64_t>> LogHistogram::nonEmptyBins() const {
  std::vector<std::pair<int, uint64_t>> out;
  for (int i = 0; i < kBins; ++i) {
    if (bins_[static_cast<size_t>(i)]) out.emplace_back(i, bins_[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace nccl_roce::stats

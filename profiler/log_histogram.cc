#include "profiler/log_histogram.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

namespace nccl_roce::profiler {

namespace {

const double kGamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);

}  // namespace

namespace detail {

BinMap::BinMap() {
  for (size_t i = 0; i < kBins; ++i) {
    upper_[i] = std::pow(kGamma, static_cast<double>(i)) * LogHistogram::kMinNs;
    upperFloor_[i] = static_cast<uint64_t>(std::floor(upper_[i]));
  }
  firstSlice_ = sliceOf(static_cast<double>(upperFloor_[0] + 1));
  uint64_t lastSlice = sliceOf(static_cast<double>(upperFloor_[kBins - 1]));
  int bin = 0;
  // kSlices covers the range (tests/unit/stats pin every bin's bounds); the bound only keeps the table safe.
  for (uint64_t slice = firstSlice_; slice <= lastSlice && slice - firstSlice_ < kSlices; ++slice) {
    double lowest = lowestOf(slice);
    while (bin < kBins - 1 && lowest > upper_[static_cast<size_t>(bin)]) ++bin;
    firstBin_[slice - firstSlice_] = static_cast<uint16_t>(bin);
  }
}

double BinMap::lowestOf(uint64_t slice) {
  uint64_t bits = slice << (52 - kSliceBits);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace detail

double LogHistogram::gamma() { return kGamma; }

double LogHistogram::representativeNs(int bin) { return 2 * std::pow(kGamma, bin) * kMinNs / (kGamma + 1); }

double LogHistogram::upperBoundNs(int bin) { return detail::binMap().upper(std::clamp(bin, 0, kBins - 1)); }

double LogHistogram::largestNs() { return detail::binMap().upper(kBins - 1); }

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

std::optional<double> LogHistogram::geometricMeanNs() const { return geometricMeanNs(count_, binSum()); }

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

}  // namespace nccl_roce::profiler

// A histogram of durations with logarithmic bins: every quantile it reports is within 1% of the true value
// (relative error), in a fixed 8 KiB, with no allocation after construction. The profiler plugin records one
// duration per collective into it on NCCL's threads; `nccl-roce ab` merges histograms from many processes.
//
// Bin i holds durations d (nanoseconds) with gamma^(i-1) < d / kMinNs <= gamma^i, gamma = 1.01 / 0.99; a bin's
// representative value 2 gamma^i kMinNs / (gamma + 1) is within 1% of everything in it (DDSketch's mapping,
// Masson, Rim, Lee 2019). Durations below kMinNs count in bin 0, above the last bin in the last: both are
// counted separately so a report can say so.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "common/inline.h"

namespace nccl_roce::profiler {

namespace detail {
// Bins found without log(), since the profiler bins every collective. A double's exponent and top six mantissa
// bits cut each octave into 64 slices, each narrower than a bin (at most 1.6% wide against a bin's 2%), so a
// slice meets at most two bins: a table gives the bin of the slice's lowest value, and one comparison with that
// bin's upper bound settles it. The comparisons are in integers: for an integer n, n > upper exactly when
// n > floor(upper).
class BinMap {
 public:
  BinMap();
  NCCL_ROCE_ALWAYS_INLINE size_t binOf(uint64_t ns) const {
    if (ns <= upperFloor_[0]) return 0;
    if (ns > upperFloor_[kBins - 1]) return kBins - 1;
    size_t bin = firstBin_[sliceOf(static_cast<double>(static_cast<int64_t>(ns))) - firstSlice_];  // ns < 2^37
    return ns > upperFloor_[bin] ? bin + 1 : bin;
  }
  double upper(int bin) const { return upper_[static_cast<size_t>(bin)]; }
  uint64_t largest() const { return upperFloor_[kBins - 1]; }  // the largest integer the last bin holds

  static constexpr int kBins = 1024;

 private:
  static constexpr int kSliceBits = 6;
  static constexpr int kSlices = 2048;  // 30 octaves from kMinNs to the last bin, 64 slices each (1,928 used)
  static uint64_t sliceOf(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return bits >> (52 - kSliceBits);
  }
  static double lowestOf(uint64_t slice);

  std::array<double, kBins> upper_{};         // kMinNs x gamma^i: bin i holds (upper[i-1], upper[i]]
  std::array<uint64_t, kBins> upperFloor_{};  // floor(upper_[i])
  std::array<uint16_t, kSlices> firstBin_{};  // by slice, from the slice of floor(kMinNs) + 1
  uint64_t firstSlice_ = 0;
};

// Built once, on first use.
inline const BinMap& binMap() {
  static const BinMap map;
  return map;
}
}  // namespace detail

class LogHistogram {
 public:
  static constexpr double kRelativeError = 0.01;
  static constexpr double kMinNs = 100;        // 0.1 us: below any collective's duration
  static constexpr int kBins = detail::BinMap::kBins;  // up to 0.1 us x gamma^1023, about 77 s
  static double gamma();                       // (1 + kRelativeError) / (1 - kRelativeError)

  void record(uint64_t durationNs) {
    const detail::BinMap& bins = detail::binMap();
    recordInRange(durationNs, bins);
    if (durationNs > bins.largest()) ++above_;
  }
  // The same for a duration within the histogram's range (at most bins.largest(): nothing counts as above), with
  // the bin map at hand: what the profiler calls once per collective, having dropped durations past the range
  // already; keeping the map saves binMap()'s first-use check. Inline for that caller.
  NCCL_ROCE_ALWAYS_INLINE void recordInRange(uint64_t durationNs, const detail::BinMap& bins) {
    ++bins_[bins.binOf(durationNs)];
    ++count_;
    sumNs_ += durationNs;
    if (durationNs < minNs_) minNs_ = durationNs;
    if (durationNs > maxNs_) maxNs_ = durationNs;
    if (durationNs < static_cast<uint64_t>(kMinNs)) ++below_;  // an integer comparison (kMinNs is whole)
  }
  // Adds `count` observations in bin `bin` (0 .. kBins-1); what merging and reading files use.
  void addToBin(int bin, uint64_t count);
  void merge(const LogHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t sumNs() const { return sumNs_; }
  uint64_t minNs() const { return count_ ? minNs_ : 0; }
  uint64_t maxNs() const { return maxNs_; }
  uint64_t below() const { return below_; }  // recorded below kMinNs (in bin 0)
  uint64_t above() const { return above_; }  // recorded above the last bin's upper bound (in the last bin)

  // The q-quantile (0 <= q <= 1) by nearest rank, as its bin's representative value; nullopt when empty.
  std::optional<double> quantileNs(double q) const;
  // exp(mean(log d)) from the bins' representative values: the geometric mean within 1%.
  std::optional<double> geometricMeanNs() const;
  // The sum over every observation of its bin: each duration's log in steps of ln(gamma) above kMinNs, rounded up
  // to its bin. With count() it is all a geometric mean needs (the sufficient statistics `nccl-roce ab` reads
  // from statistics files and from Prometheus alike); an integer, so sums over ranks and pods are exact.
  uint64_t binSum() const;
  // The geometric mean of `count` observations whose bins sum to `binSum`: the representative value of the mean
  // bin, 2 gamma^(binSum/count) kMinNs / (gamma + 1). One formula, so every reader of these two integers
  // computes the same double. nullopt when count is 0.
  static std::optional<double> geometricMeanNs(uint64_t count, uint64_t binSum);

  // The bins that hold observations, as (bin, count), ascending: the serialised form.
  std::vector<std::pair<int, uint64_t>> nonEmptyBins() const;

  static int binOf(uint64_t durationNs) { return static_cast<int>(detail::binMap().binOf(durationNs)); }
  static double representativeNs(int bin);
  static double upperBoundNs(int bin);  // kMinNs x gamma^bin
  static double largestNs();            // upperBoundNs(kBins - 1), computed once

 private:
  std::array<uint64_t, kBins> bins_{};
  uint64_t count_ = 0, sumNs_ = 0, minNs_ = UINT64_MAX, maxNs_ = 0, below_ = 0, above_ = 0;
};

}  // namespace nccl_roce::profiler

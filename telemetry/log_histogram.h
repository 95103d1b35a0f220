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
#include <optional>
#include <utility>
#include <vector>

namespace nccl_roce::telemetry {

class LogHistogram {
 public:
  static constexpr double kRelativeError = 0.01;
  static constexpr double kMinNs = 100;  // 0.1 us: below any collective's duration
  static constexpr int kBins = 1024;     // up to 0.1 us x gamma^1023, about 77 s
  static double gamma();                 // (1 + kRelativeError) / (1 - kRelativeError)

  // Counts one duration; returns the bin it fell in.
  int record(uint64_t durationNs);
  // Adds `count` observations in bin `bin` (0 .. kBins-1); what merging and reading files use.
  void addToBin(int bin, uint64_t count);
  void merge(const LogHistogram& other);
  // After the bins were read back (addToBin), the exact sum, minimum and maximum they were recorded with, which
  // the bins alone give only within 1%.
  void restoreMoments(uint64_t sumNs, uint64_t minNs, uint64_t maxNs);

  uint64_t count() const { return count_; }
  uint64_t binCount(int bin) const { return bins_[static_cast<size_t>(bin)]; }  // 0 .. kBins-1
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

  // The bin that holds a duration: the first whose upper bound is at least it (a binary search), the last
  // bin for anything past the range.
  static int binOf(uint64_t durationNs);
  static double representativeNs(int bin);
  static double upperBoundNs(int bin);  // kMinNs x gamma^bin
  static uint64_t largestNs();          // the largest whole duration the last bin holds: past it is "above"

 private:
  std::array<uint64_t, kBins> bins_{};
  uint64_t count_ = 0, sumNs_ = 0, minNs_ = UINT64_MAX, maxNs_ = 0, below_ = 0, above_ = 0;
};

}  // namespace nccl_roce::telemetry

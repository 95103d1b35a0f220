#include "nccl-tests-integration/sweep/compare.h"

#include <cmath>

#include "common/strings.h"
#include "nccl-tests-integration/sweep/statistics.h"

namespace nccl_roce::sweep {

const char* verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kNoDifference: return "no difference";
    case Verdict::kInsufficient: break;
  }
  return "insufficient replicates";
}

Verdict verdictFor(double ratio, double ciLow, double ciHigh, double minEffect) {
  if (ciHigh < 1.0 && ratio <= 1.0 - minEffect) return Verdict::kFaster;
  if (ciLow > 1.0 && ratio >= 1.0 + minEffect) return Verdict::kSlower;
  return Verdict::kNoDifference;
}

namespace {

void noteUneven(const Series& series, const char* side, std::vector<std::string>* out) {
  for (const auto& [size, times] : series.timesUs) {
    if (static_cast<int>(times.size()) < series.runs) {
      out->push_back(formatByteSize(size) + ": " + side + " has " + std::to_string(times.size()) + " of " +
                     std::to_string(series.runs) + " replicates");
    }
  }
}

SeriesComparison compareSeries(const Series& a, const Series& b, const CompareOptions& options) {
  SeriesComparison out;
  out.key = a.key;
  out.runsA = a.runs;
  out.runsB = b.runs;
  noteUneven(a, "A", &out.unevenSizes);
  noteUneven(b, "B", &out.unevenSizes);
  for (const auto& [size, times] : a.timesUs) {
    if (!b.timesUs.count(size)) out.onlyInA.push_back(size);
  }
  for (const auto& [size, times] : b.timesUs) {
    if (!a.timesUs.count(size)) out.onlyInB.push_back(size);
  }

  RangeSummary& summary = out.summary;
  summary.lo = options.rangeLo;
  summary.hi = options.rangeHi;
  std::vector<double> logDraws;  // per resample: sum over in-range sizes of log(ratio draw)
  double logSum = 0;
  double worst = 0, best = 0;
  for (const auto& [size, timesA] : a.timesUs) {
    auto found = b.timesUs.find(size);
    if (found == b.timesUs.end()) continue;
    const std::vector<double>& timesB = found->second;
    SizeComparison c;
    c.size = size;
    c.nA = static_cast<int>(timesA.size());
    c.nB = static_cast<int>(timesB.size());
    c.medianA = median(timesA);
    c.medianB = median(timesB);
    c.ratio = c.medianB / c.medianA;
    std::vector<double> draws = bootstrapMedianRatios(timesA, timesB, options.resamples, seedFor(size));
    std::tie(c.ciLow, c.ciHigh) = percentileInterval(draws, options.confidence);
    bool enough = c.nA >= options.minReplicates && c.nB >= options.minReplicates;
    c.verdict = enough ? verdictFor(c.ratio, c.ciLow, c.ciHigh, options.minEffect) : Verdict::kInsufficient;
    out.sizes.push_back(c);

    if (size < options.rangeLo || size > options.rangeHi) continue;
    switch (c.verdict) {
      case Verdict::kFaster: ++summary.faster; break;
      case Verdict::kSlower: ++summary.slower; break;
      case Verdict::kNoDifference: ++summary.noDifference; break;
      case Verdict::kInsufficient: ++summary.insufficient; continue;
    }
    if (summary.sizes++ == 0) {
      logDraws.assign(draws.size(), 0.0);
      worst = best = c.ratio;
      summary.worstSize = summary.bestSize = size;
    }
    for (size_t i = 0; i < draws.size(); ++i) logDraws[i] += std::log(draws[i]);
    logSum += std::log(c.ratio);
    if (c.ratio > worst) {
      worst = c.ratio;
      summary.worstSize = size;
    }
    if (c.ratio < best) {
      best = c.ratio;
      summary.bestSize = size;
    }
  }
  if (summary.sizes > 0) {
    double n = summary.sizes;
    for (double& d : logDraws) d = std::exp(d / n);
    summary.geomeanRatio = std::exp(logSum / n);
    auto [lo, hi] = percentileInterval(logDraws, options.confidence);
    summary.ciLow = lo;
    summary.ciHigh = hi;
    summary.verdict = verdictFor(*summary.geomeanRatio, lo, hi, options.minEffect);
  }
  return out;
}

}  // namespace

Comparison compareSweeps(const SampleSet& a, const SampleSet& b, const CompareOptions& options) {
  Comparison out;
  out.options = options;
  for (const std::string& note : a.notes) out.notes.push_back("A: " + note);
  for (const std::string& note : b.notes) out.notes.push_back("B: " + note);
  for (const auto& [key, series] : a.series) {
    auto found = b.series.find(key);
    if (found == b.series.end()) {
      out.notes.push_back("only A measured " + key.describe());
      continue;
    }
    out.series.push_back(compareSeries(series, found->second, options));
  }
  for (const auto& [key, series] : b.series) {
    if (!a.series.count(key)) out.notes.push_back("only B measured " + key.describe());
  }
  return out;
}

}  // namespace nccl_roce::sweep

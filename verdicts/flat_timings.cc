#include "verdicts/flat_timings.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/strings.h"

namespace nccl_roce::verdicts {

std::optional<FlatSpan> findFlatSpan(const std::map<uint64_t, double>& usBySize, const FlatCriteria& criteria) {
  std::vector<std::pair<uint64_t, double>> points;
  for (const auto& [size, us] : usBySize) {
    if (size > 0 && us > 0) points.emplace_back(size, us);
  }
  std::optional<FlatSpan> best;
  double bestRatio = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    double lo = points[i].second, hi = points[i].second;
    size_t j = i;
    while (j + 1 < points.size()) {
      double nextLo = std::min(lo, points[j + 1].second), nextHi = std::max(hi, points[j + 1].second);
      if (nextHi > nextLo * (1 + criteria.tolerance)) break;
      lo = nextLo;
      hi = nextHi;
      ++j;
    }
    double ratio = static_cast<double>(points[j].first) / static_cast<double>(points[i].first);
    if (ratio <= bestRatio || ratio < static_cast<double>(criteria.quantumSpan)) continue;
    std::vector<double> times;
    for (size_t k = i; k <= j; ++k) times.push_back(points[k].second);
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    if (ratio < static_cast<double>(criteria.minSpan) && median < criteria.quantumUs) continue;
    best = FlatSpan{points[i].first, points[j].first, static_cast<int>(n), median, hi / lo - 1};
    bestRatio = ratio;
  }
  return best;
}

std::string describeFlatSpan(const FlatSpan& span) {
  char time[32], spread[32];
  if (span.medianUs >= 1000) {
    std::snprintf(time, sizeof time, "%.2f ms", span.medianUs / 1000);
  } else {
    std::snprintf(time, sizeof time, "%.1f us", span.medianUs);
  }
  std::snprintf(spread, sizeof spread, "%.1f%%", span.spread * 100);
  return std::string("about ") + time + " at every size from " + formatByteSize(span.loBytes) + " to " +
         formatByteSize(span.hiBytes) + " (" + std::to_string(span.sizes) + " sizes within " + spread + ")";
}

}  // namespace nccl_roce::verdicts

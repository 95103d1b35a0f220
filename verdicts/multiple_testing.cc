#include "verdicts/multiple_testing.h"

#include <algorithm>
#include <numeric>

namespace nccl_roce::verdicts {

namespace {

// Indices of pValues, smallest p first (ties in input order, so the result does not depend on the sort).
std::vector<size_t> ascending(const std::vector<double>& pValues) {
  std::vector<size_t> order(pValues.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return pValues[x] < pValues[y]; });
  return order;
}

}  // namespace

std::vector<bool> holmRejections(const std::vector<double>& pValues, double alpha) {
  std::vector<bool> reject(pValues.size(), false);
  std::vector<size_t> order = ascending(pValues);
  double m = static_cast<double>(pValues.size());
  for (size_t k = 0; k < order.size(); ++k) {
    // The k-th smallest (0-based) is tested at alpha / (m - k); the first that fails stops the procedure.
    if (!(pValues[order[k]] <= alpha / (m - static_cast<double>(k)))) break;
    reject[order[k]] = true;
  }
  return reject;
}

std::vector<bool> benjaminiHochbergRejections(const std::vector<double>& pValues, double q) {
  std::vector<bool> reject(pValues.size(), false);
  std::vector<size_t> order = ascending(pValues);
  double m = static_cast<double>(pValues.size());
  // The largest k whose k-th smallest p is at most k q / m; every hypothesis up to it is rejected.
  size_t count = 0;
  for (size_t k = order.size(); k > 0; --k) {
    if (pValues[order[k - 1]] <= static_cast<double>(k) * q / m) {
      count = k;
      break;
    }
  }
  for (size_t k = 0; k < count; ++k) reject[order[k]] = true;
  return reject;
}

}  // namespace nccl_roce::verdicts

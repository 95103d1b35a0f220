#include "tests/calibration/bootstrap_methods.h"

#include <algorithm>
#include <cmath>

namespace nccl_roce::verdicts::calibration {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

SimpleInterval percentile(std::vector<double> draws, double estimate, double confidence) {
  std::sort(draws.begin(), draws.end());
  double alpha = 1 - confidence;
  auto rank = [&](double q) {
    size_t i = static_cast<size_t>(std::max(1.0, std::ceil(q * static_cast<double>(draws.size())))) - 1;
    return draws[std::min(i, draws.size() - 1)];
  };
  return {estimate, rank(alpha / 2), rank(1 - alpha / 2)};
}

std::vector<size_t> resample(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<size_t> out(n);
  for (size_t& i : out) i = pick(rng);
  return out;
}

}  // namespace

MethodResult medianPercentileBootstrap(const std::vector<Unit>& a, const std::vector<Unit>& b,
                                       const std::vector<uint64_t>& cells, double confidence, int resamples,
                                       std::mt19937_64& rng) {
  MethodResult out;
  std::vector<double> rangeDraws(static_cast<size_t>(resamples), 0.0);
  double rangeEstimate = 0;
  for (uint64_t cell : cells) {
    std::vector<double> va = valuesAt(a, cell), vb = valuesAt(b, cell);
    double estimate = median(vb) / median(va);
    std::vector<double> draws;
    for (int r = 0; r < resamples; ++r) {
      std::vector<double> ra, rb;
      for (size_t i : resample(va.size(), rng)) ra.push_back(va[i]);
      for (size_t i : resample(vb.size(), rng)) rb.push_back(vb[i]);
      draws.push_back(median(rb) / median(ra));
      rangeDraws[static_cast<size_t>(r)] += std::log(draws.back());
    }
    out.cells.push_back(percentile(draws, estimate, confidence));
    rangeEstimate += std::log(estimate);
  }
  double n = static_cast<double>(cells.size());
  for (double& d : rangeDraws) d = std::exp(d / n);
  out.range = percentile(rangeDraws, std::exp(rangeEstimate / n), confidence);
  return out;
}

MethodResult clusterBootstrap(const std::vector<Unit>& a, const std::vector<Unit>& b,
                              const std::vector<uint64_t>& cells, double confidence, int resamples,
                              std::mt19937_64& rng) {
  auto logMean = [](const std::vector<Unit>& units, const std::vector<size_t>& pick, uint64_t cell) {
    double sum = 0;
    for (size_t i : pick) sum += std::log(units[i].values.at(cell));
    return sum / static_cast<double>(pick.size());
  };
  auto identity = [](size_t n) {
    std::vector<size_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = i;
    return v;
  };
  std::vector<std::vector<double>> cellDraws(cells.size());
  std::vector<double> rangeDraws;
  for (int r = 0; r < resamples; ++r) {
    std::vector<size_t> pa = resample(a.size(), rng), pb = resample(b.size(), rng);
    double sum = 0;
    for (size_t c = 0; c < cells.size(); ++c) {
      double d = logMean(b, pb, cells[c]) - logMean(a, pa, cells[c]);
      cellDraws[c].push_back(std::exp(d));
      sum += d;
    }
    rangeDraws.push_back(std::exp(sum / static_cast<double>(cells.size())));
  }
  MethodResult out;
  double sum = 0;
  for (size_t c = 0; c < cells.size(); ++c) {
    double d = logMean(b, identity(b.size()), cells[c]) - logMean(a, identity(a.size()), cells[c]);
    out.cells.push_back(percentile(cellDraws[c], std::exp(d), confidence));
    sum += d;
  }
  out.range = percentile(rangeDraws, std::exp(sum / static_cast<double>(cells.size())), confidence);
  return out;
}

}  // namespace nccl_roce::verdicts::calibration

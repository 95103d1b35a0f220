#include "verdicts/signed_rank.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <string>

namespace nccl_roce::verdicts {

namespace {

double normalQuantile(double p) {
  return boost::math::quantile(boost::math::normal(), p);
}
double normalCdf(double x) {
  return boost::math::cdf(boost::math::normal(), x);
}

// Wilcoxon's statistic for `d` - shift: the sum of the ranks of |d - shift| over the positive ones (zeros left
// out, ties given their average rank), with its null mean and standard deviation.
struct SignedRank {
  int n = 0;        // non-zero differences
  double plus = 0;  // the statistic W+
  double mean = 0, sd = 0;
  bool ties = false;  // equal magnitudes (or zeros): the exact table does not apply
};

SignedRank signedRank(const std::vector<double>& d, double shift) {
  std::vector<std::pair<double, bool>> magnitudes;  // |d - shift|, positive?
  magnitudes.reserve(d.size());
  SignedRank s;
  for (double x : d) {
    if (x - shift == 0) {
      s.ties = true;
      continue;
    }
    magnitudes.emplace_back(std::fabs(x - shift), x - shift > 0);
  }
  std::sort(magnitudes.begin(), magnitudes.end());
  s.n = static_cast<int>(magnitudes.size());
  double tieCorrection = 0;
  for (size_t i = 0; i < magnitudes.size();) {
    size_t j = i;
    while (j < magnitudes.size() && magnitudes[j].first == magnitudes[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // average of ranks i+1..j
    for (size_t k = i; k < j; ++k) s.plus += magnitudes[k].second ? rank : 0;
    const double t = static_cast<double>(j - i);
    if (j - i > 1) s.ties = true;
    tieCorrection += t * t * t - t;
    i = j;
  }
  const double n = s.n;
  s.mean = n * (n + 1) / 4;
  s.sd = std::sqrt(std::max(0.0, n * (n + 1) * (2 * n + 1) / 24 - tieCorrection / 48));
  return s;
}

// The number of sign patterns of n ranks whose W+ is each of 0 .. n(n+1)/2 (out of 2^n).
std::vector<double> exactCounts(int n) {
  std::vector<double> counts(static_cast<size_t>(n) * (n + 1) / 2 + 1, 0);
  counts[0] = 1;
  int reach = 0;
  for (int r = 1; r <= n; ++r) {
    reach += r;
    for (int s = reach; s >= r; --s) counts[static_cast<size_t>(s)] += counts[static_cast<size_t>(s - r)];
  }
  return counts;
}

bool exact(const SignedRank& s) {
  return !s.ties && s.n <= kExactUnits;
}

// P(W+ <= w) and P(W+ >= w) under the sign flips.
std::pair<double, double> tails(const SignedRank& s) {
  if (!exact(s)) {
    if (!(s.sd > 0)) return {1, 1};
    return {normalCdf((s.plus + 0.5 - s.mean) / s.sd), 1 - normalCdf((s.plus - 0.5 - s.mean) / s.sd)};
  }
  const std::vector<double> counts = exactCounts(s.n);
  const double all = std::ldexp(1.0, s.n);
  double below = 0, above = 0;
  for (size_t w = 0; w < counts.size(); ++w) {
    if (static_cast<double>(w) <= s.plus) below += counts[w];
    if (static_cast<double>(w) >= s.plus) above += counts[w];
  }
  return {below / all, above / all};
}

// The largest c with P(W+ <= c) <= tail for n untied ranks; -1 when even W+ = 0 is likelier.
int lowerCritical(int n, double tail) {
  if (n <= kExactUnits) {
    const std::vector<double> counts = exactCounts(n);
    const double all = std::ldexp(1.0, n);
    double cumulative = 0;
    int c = -1;
    for (size_t w = 0; w < counts.size(); ++w) {
      cumulative += counts[w];
      if (cumulative / all > tail) break;
      c = static_cast<int>(w);
    }
    return c;
  }
  const double mean = n * (n + 1.0) / 4, sd = std::sqrt(n * (n + 1.0) * (2.0 * n + 1) / 24);
  return static_cast<int>(std::floor(mean - 0.5 + normalQuantile(tail) * sd));
}

// Pairs i <= j of sorted `x` with (x_i + x_j) / 2 <= v.
uint64_t walshAtMost(const std::vector<double>& x, double v) {
  uint64_t count = 0;
  int64_t j = static_cast<int64_t>(x.size()) - 1;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    while (j >= i && x[static_cast<size_t>(i)] + x[static_cast<size_t>(j)] > 2 * v) --j;
    if (j < i) break;
    count += static_cast<uint64_t>(j - i + 1);
  }
  return count;
}

// The k-th smallest (from 1) of the pairwise averages (x_i + x_j) / 2, i <= j, of sorted `x`: bisection on the
// value, counting in O(n) each step, so no list of the n(n+1)/2 averages is ever made.
double walshOrder(const std::vector<double>& x, uint64_t k) {
  double lo = x.front(), hi = x.back();
  for (int step = 0; step < 200 && lo < hi; ++step) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (walshAtMost(x, mid) >= k ? hi : lo) = mid;
  }
  return hi;
}

Status tooFew(size_t units, double confidence) {
  return Status(StatusCode::kFailedPrecondition,
                std::to_string(units) + " unit" + (units == 1 ? "" : "s") + ": a verdict at " +
                    std::to_string(static_cast<int>(std::lround(confidence * 100))) + "% needs at least " +
                    std::to_string(fewestUnitsFor(confidence)) +
                    " (no outcome of fewer fair draws is rarer than the error it allows)");
}

RatioInterval ratioOf(double estimate, double low, double high, double scale, int units,
                      std::pair<double, double> tailsAtZero) {
  RatioInterval out;
  out.nA = out.nB = units;
  out.degreesOfFreedom = units - 1;
  out.ratio = std::exp(estimate * scale);
  out.low = std::exp(low * scale);
  out.high = std::exp(high * scale);
  out.pBFaster = tailsAtZero.first;
  out.pBSlower = tailsAtZero.second;
  return out;
}

}  // namespace

int fewestUnitsFor(double confidence) {
  int n = 1;
  while (n < 64 && std::ldexp(2.0, -n) > 1 - confidence) ++n;
  return n;
}

StatusOr<RatioInterval> signedRankRatio(const std::vector<double>& differences, double scale, double confidence) {
  if (differences.size() < static_cast<size_t>(fewestUnitsFor(confidence))) {
    return tooFew(differences.size(), confidence);
  }
  std::vector<double> x = differences;
  for (double d : x) {
    if (!std::isfinite(d)) return Status(StatusCode::kFailedPrecondition, "a unit's difference is not a number");
  }
  std::sort(x.begin(), x.end());
  const uint64_t n = x.size(), pairs = n * (n + 1) / 2;
  const double estimate =
      pairs % 2 == 1 ? walshOrder(x, (pairs + 1) / 2) : (walshOrder(x, pairs / 2) + walshOrder(x, pairs / 2 + 1)) / 2;
  const int c = lowerCritical(static_cast<int>(n), (1 - confidence) / 2);
  if (c < 0) return tooFew(differences.size(), confidence);
  const double low = walshOrder(x, static_cast<uint64_t>(c) + 1),
               high = walshOrder(x, pairs - static_cast<uint64_t>(c));
  return ratioOf(estimate, low, high, scale, static_cast<int>(n), tails(signedRank(x, 0)));
}

StatusOr<RatioInterval> stratifiedSignedRankRatio(const std::vector<std::vector<double>>& cells, double scale,
                                                  double confidence) {
  std::vector<const std::vector<double>*> used;
  size_t units = 0;
  double lo = HUGE_VAL, hi = -HUGE_VAL;  // the differences' range: the shift is found around it
  for (const std::vector<double>& c : cells) {
    if (c.empty()) continue;
    for (double d : c) {
      if (!std::isfinite(d)) return Status(StatusCode::kFailedPrecondition, "a unit's difference is not a number");
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    used.push_back(&c);
    units += c.size();
  }
  if (used.size() == 1) return signedRankRatio(*used.front(), scale, confidence);
  if (units < static_cast<size_t>(fewestUnitsFor(confidence))) return tooFew(units, confidence);
  // The sum of the cells' standardised statistics at a common shift: non-increasing in the shift.
  auto z = [&](double shift) {
    double sum = 0;
    for (const std::vector<double>* c : used) {
      SignedRank s = signedRank(*c, shift);
      if (s.sd > 0) sum += (s.plus - s.mean) / s.sd;
    }
    return sum / std::sqrt(static_cast<double>(used.size()));
  };
  // The least shift where z is at most `level`: z falls as the shift grows, from its most below the differences'
  // range to its least above it.
  auto firstAtMost = [&](double level) {
    double a = lo - (hi - lo) - 1, b = hi + (hi - lo) + 1;
    for (int step = 0; step < 100 && a < b; ++step) {
      const double mid = a + (b - a) / 2;
      if (mid <= a || mid >= b) break;
      (z(mid) <= level ? b : a) = mid;
    }
    return b;
  };
  const double critical = normalQuantile(0.5 + confidence / 2);
  const double estimate = (firstAtMost(0) + firstAtMost(-1e-9)) / 2;
  const double low = firstAtMost(critical), high = firstAtMost(-critical);
  const double atZero = z(0);
  return ratioOf(estimate, low, high, scale, static_cast<int>(units), {normalCdf(atZero), 1 - normalCdf(atZero)});
}

}  // namespace nccl_roce::verdicts

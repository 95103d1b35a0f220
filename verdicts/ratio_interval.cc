#include "verdicts/ratio_interval.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <string>

namespace nccl_roce::verdicts {

namespace {

// Boost.Math reports a domain error by throwing unless told otherwise; the inputs are checked before any call,
// and this policy keeps a missed case a NaN instead of an exception.
using NoThrow =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;
using StudentsT = boost::math::students_t_distribution<double, NoThrow>;

struct LogMoments {
  double mean = 0, variance = 0;  // sample variance (n - 1)
};

LogMoments logMoments(const std::vector<double>& values) {
  LogMoments m;
  for (double v : values) m.mean += std::log(v);
  m.mean /= static_cast<double>(values.size());
  for (double v : values) m.variance += (std::log(v) - m.mean) * (std::log(v) - m.mean);
  m.variance /= static_cast<double>(values.size() - 1);
  return m;
}

Status checkSide(const std::vector<double>& values, const char* side) {
  if (values.size() < 2) {
    return Status(StatusCode::kFailedPrecondition, std::string(side) + " has " + std::to_string(values.size()) +
                                                       " value" + (values.size() == 1 ? "" : "s") +
                                                       ": a spread needs at least 2");
  }
  for (double v : values) {
    if (!std::isfinite(v) || v <= 0) {
      return Status(StatusCode::kFailedPrecondition,
                    std::string(side) + " holds " + std::to_string(v) + ", not a positive time");
    }
  }
  return Status::ok();
}

}  // namespace

StatusOr<RatioInterval> ratioOfGeometricMeans(const std::vector<double>& a, const std::vector<double>& b,
                                              double confidence, DegreesOfFreedom method) {
  for (const auto& [values, side] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    Status status = checkSide(*values, side);
    if (!status.isOk()) return status;
  }
  auto allEqual = [](const std::vector<double>& v) { return std::equal(v.begin() + 1, v.end(), v.begin()); };
  if (allEqual(a) && allEqual(b)) {
    // Tested on the values themselves: the logarithms' rounding would leave a spread of 1e-32.
    return Status(StatusCode::kFailedPrecondition,
                  "every value on both sides is identical: no spread to judge a difference by (the same log twice?)");
  }
  LogMoments ma = logMoments(a), mb = logMoments(b);
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  double va = ma.variance / na, vb = mb.variance / nb;  // squared standard errors of the two means
  double se2 = va + vb;
  RatioInterval out;
  out.nA = static_cast<int>(a.size());
  out.nB = static_cast<int>(b.size());
  double difference = mb.mean - ma.mean;
  out.degreesOfFreedom = method == DegreesOfFreedom::kSmallerSide
                             ? std::min(na, nb) - 1
                             : se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
  StudentsT t(out.degreesOfFreedom);
  double se = std::sqrt(se2);
  double half = boost::math::quantile(t, 0.5 + confidence / 2) * se;
  out.ratio = std::exp(difference);
  out.low = std::exp(difference - half);
  out.high = std::exp(difference + half);
  // Small when B's mean is far below A's: the chance of a difference this negative if B were not faster.
  out.pBFaster = boost::math::cdf(t, difference / se);
  out.pBSlower = boost::math::cdf(boost::math::complement(t, difference / se));
  if (!std::isfinite(half) || !std::isfinite(out.pBFaster)) {
    return Status(StatusCode::kFailedPrecondition, "the interval could not be computed from these values");
  }
  return out;
}

}  // namespace nccl_roce::verdicts

#include "verdicts/paired_ratio.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <string>

namespace nccl_roce::verdicts {

namespace {

using NoThrow =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;
using StudentsT = boost::math::students_t_distribution<double, NoThrow>;

struct MeanAndError {
  double mean = 0, standardError = 0;
};

StatusOr<MeanAndError> meanOf(const PairedSums& s) {
  if (!(s.windows >= 2)) {
    return Status(StatusCode::kFailedPrecondition,
                  "fewer than 2 windows where both arms ran: a spread needs at least 2");
  }
  double mean = s.sum / s.windows;
  double variance = std::max(0.0, (s.sumSq - s.sum * mean) / (s.windows - 1));
  if (!(variance > 0) || !std::isfinite(variance)) {
    return Status(StatusCode::kFailedPrecondition, "no spread between windows to judge a difference by");
  }
  return MeanAndError{mean, std::sqrt(variance / s.windows)};
}

RatioInterval intervalOf(double logRatio, double standardError, double df, double windows, double confidence) {
  RatioInterval out;
  out.nA = out.nB = static_cast<int>(windows);
  out.degreesOfFreedom = df;
  StudentsT t(df);
  double half = boost::math::quantile(t, 0.5 + confidence / 2) * standardError;
  out.ratio = std::exp(logRatio);
  out.low = std::exp(logRatio - half);
  out.high = std::exp(logRatio + half);
  out.pBFaster = boost::math::cdf(t, logRatio / standardError);
  out.pBSlower = boost::math::cdf(boost::math::complement(t, logRatio / standardError));
  return out;
}

}  // namespace

StatusOr<RatioInterval> pairedRatio(const PairedSums& sums, double scale, double confidence) {
  StatusOr<MeanAndError> m = meanOf(sums);
  if (!m.isOk()) return m.status();
  RatioInterval out =
      intervalOf(m->mean * scale, m->standardError * scale, std::floor(sums.windows) - 1, sums.windows, confidence);
  if (!std::isfinite(out.low) || !std::isfinite(out.high)) {
    return Status(StatusCode::kFailedPrecondition, "the interval could not be computed from these windows");
  }
  return out;
}

StatusOr<RatioInterval> meanOfPairedRatios(const std::vector<PairedSums>& cells, double scale, double confidence) {
  if (cells.empty()) return Status(StatusCode::kFailedPrecondition, "no size bucket to summarise");
  double logRatio = 0, error = 0, fewest = cells.front().windows;
  for (const PairedSums& c : cells) {
    StatusOr<MeanAndError> m = meanOf(c);
    if (!m.isOk()) return m.status();
    logRatio += m->mean * scale;
    error += m->standardError * scale;
    fewest = std::min(fewest, c.windows);
  }
  double n = static_cast<double>(cells.size());
  RatioInterval out = intervalOf(logRatio / n, error / n, std::floor(fewest) - 1, fewest, confidence);
  if (!std::isfinite(out.low) || !std::isfinite(out.high)) {
    return Status(StatusCode::kFailedPrecondition, "the interval could not be computed from these windows");
  }
  return out;
}

}  // namespace nccl_roce::verdicts

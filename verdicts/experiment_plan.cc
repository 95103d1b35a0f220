#include "verdicts/experiment_plan.h"

#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "common/log.h"

namespace nccl_roce::verdicts {

namespace {

using NoThrow =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::evaluation_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::rounding_error<boost::math::policies::ignore_error>>;

constexpr double kYear = 365.0 * 24 * 3600;

double smallestShare(const PlanInputs& in) {
  double smallest = 1;
  for (size_t a = 1; a < in.shares.size(); ++a) smallest = std::min(smallest, in.shares[a]);
  return smallest;
}

// The least time in [0, kYear] with power at least in.power, by bisection on a power that grows with time.
double secondsToPower(const PlanInputs& in, double (*power)(const PlanInputs&, double)) {
  double lo = 0, hi = kYear;
  if (power(in, hi) < in.power) return -1;
  for (int i = 0; i < 200 && hi - lo > 1e-3 * hi; ++i) {
    double mid = (lo + hi) / 2;
    (power(in, mid) >= in.power ? hi : lo) = mid;
  }
  return hi;
}

// Collectives of an arm with `share` of the turns in one window, in the bucket, after the washout.
double perWindow(const PlanInputs& in, double share) {
  return in.window * in.collectivesPerSecond / in.timedPerSecond * share * in.kept;
}

int communicatorsOf(const PlanInputs& in, double share) {
  return static_cast<int>(std::floor(in.communicators * share + 1e-9));
}

}  // namespace

double powerOfT(double logEffect, double standardError, double df, double confidence) {
  if (!(df >= 1) || !(standardError > 0)) return 0;
  boost::math::students_t_distribution<double, NoThrow> t(df);
  const double critical = boost::math::quantile(t, 0.5 + confidence / 2);
  const double shift = std::fabs(logEffect) / standardError;
  if (shift > critical + 40) return 1;  // past where the noncentral t's series converges, and certain anyway
  boost::math::non_central_t_distribution<double, NoThrow> shifted(df, shift);
  double p = boost::math::cdf(boost::math::complement(shifted, critical));
  return std::isfinite(p) ? p : 0;
}

double switchbackPower(const PlanInputs& in, double seconds) {
  const double nReference = perWindow(in, in.shares[0]), nArm = perWindow(in, smallestShare(in));
  if (nReference < 1 || nArm < 1) return 0;
  const double windows = std::floor(seconds * in.timedPerSecond * in.communicators / in.window);
  if (windows < std::max(in.minUnits, 2)) return 0;
  const double sd = in.noise * std::sqrt(1 / nArm + 1 / nReference);
  return powerOfT(std::log1p(in.effect), sd / std::sqrt(windows), windows - 1, in.confidence);
}

double perCommunicatorPower(const PlanInputs& in, double seconds) {
  const int reference = communicatorsOf(in, in.shares[0]), arm = communicatorsOf(in, smallestShare(in));
  if (std::min(reference, arm) < std::max(in.minUnits, 2)) return 0;
  const double collectives = seconds * in.collectivesPerSecond;
  if (collectives < 1) return 0;
  const double variance = in.betweenCommunicators * in.betweenCommunicators + in.noise * in.noise / collectives;
  const double se = std::sqrt(variance * (1.0 / reference + 1.0 / arm));
  return powerOfT(std::log1p(in.effect), se, std::min(reference, arm) - 1, in.confidence);
}

DesignPlan planSwitchback(const PlanInputs& in) {
  DesignPlan p;
  if (perWindow(in, smallestShare(in)) < 1 || perWindow(in, in.shares[0]) < 1) {
    p.why = format(
        "a window of %.0f timed collectives holds under one collective of an arm in this bucket: windows judge "
        "eager collectives, and this bucket has too few of them (for collectives replayed from CUDA graphs, plan "
        "with --graphs or --stats)",
        in.window);
    return p;
  }
  p.seconds = secondsToPower(in, switchbackPower);
  p.feasible = p.seconds >= 0;
  if (!p.feasible) {
    p.why = "not within a year at this traffic";
    return p;
  }
  p.units = std::floor(p.seconds * in.timedPerSecond * in.communicators / in.window);
  return p;
}

DesignPlan planPerCommunicator(const PlanInputs& in) {
  DesignPlan p;
  const int arm = communicatorsOf(in, smallestShare(in)), reference = communicatorsOf(in, in.shares[0]);
  p.units = std::min(arm, reference);
  p.seconds = secondsToPower(in, perCommunicatorPower);
  p.feasible = p.seconds >= 0;
  if (p.feasible) return p;
  // However long it runs, the communicators' placement stays: only more communicators help.
  PlanInputs more = in;
  while (more.communicators < 100000000 && perCommunicatorPower(more, kYear) < in.power) more.communicators *= 2;
  int lo = more.communicators / 2, hi = more.communicators;
  while (hi - lo > 1) {
    more.communicators = lo + (hi - lo) / 2;
    (perCommunicatorPower(more, kYear) >= in.power ? hi : lo) = more.communicators;
  }
  p.communicatorsNeeded = hi;
  p.why = format(
      "never with %d communicator%s (%d in the smallest arm): placement differs between communicators and no "
      "amount of time averages it out; it needs %d communicators",
      in.communicators, in.communicators == 1 ? "" : "s", static_cast<int>(p.units), hi);
  return p;
}

}  // namespace nccl_roce::verdicts

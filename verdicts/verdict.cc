#include "verdicts/verdict.h"

namespace nccl_roce::verdicts {

const char* verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoDifference:
      return "no difference";
    case Verdict::kInsufficient:
      break;
  }
  return "insufficient data";
}

Verdict verdictFor(const RatioInterval& interval, double minEffect) {
  if (interval.high < 1.0 && interval.ratio <= 1.0 - minEffect) return Verdict::kFaster;
  if (interval.low > 1.0 && interval.ratio >= 1.0 + minEffect) return Verdict::kSlower;
  return Verdict::kNoDifference;
}

}  // namespace nccl_roce::verdicts

// What an interval says, in one word.
#pragma once

#include "verdicts/ratio_interval.h"

namespace nccl_roce::verdicts {

enum class Verdict { kFaster, kSlower, kNoDifference, kInsufficient };

// "faster" (B is faster than A), "slower", "no difference", "insufficient data"
const char* verdictName(Verdict verdict);

// faster: the whole interval lies below 1 and the ratio is at most 1 - minEffect; slower: the mirror image;
// otherwise no difference. With a two-sided interval at confidence c, when the truth is "no difference" the
// chance of a faster or slower verdict is at most 1 - c (each side at most (1 - c) / 2).
Verdict verdictFor(const RatioInterval& interval, double minEffect);

}  // namespace nccl_roce::verdicts

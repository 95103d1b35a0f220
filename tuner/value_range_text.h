// Range text of policy files: "16K..256K" (inclusive), "..64K", "1M..", "4096", "*".
#pragma once

#include <string_view>

#include "common/status.h"
#include "tuner/policy.h"

namespace nccl_roce::tuner {

enum class RangeUnit { kBytes, kCount };  // kBytes accepts K/M/G/T suffixes

StatusOr<ValueRange> parseValueRange(std::string_view text, RangeUnit unit);
// The inverse, for explain and for `sweep fit` output: "16K..256K", "1M..", "*".
std::string formatValueRange(const ValueRange& range, RangeUnit unit);

}  // namespace nccl_roce::tuner

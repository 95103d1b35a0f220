// Range text of policy files, Rust-style: "16K..256K" is 16 KiB up to but not including 256 KiB, so adjacent
// ranges share their bound ("..64K" then "64K..1M"); "..=16K" includes its upper bound; "1M.." has none;
// "4096" is exactly one value; "*" is everything.
#pragma once

#include <string_view>

#include "common/status.h"
#include "policy/policy.h"

namespace nccl_roce::policy {

enum class RangeUnit { kBytes, kCount };  // kBytes accepts K/M/G/T suffixes

StatusOr<ValueRange> parseValueRange(std::string_view text, RangeUnit unit);
// The inverse, for explain and for `sweep fit` output: "16K..256K", "..=16K", "1M..", "*".
std::string formatValueRange(const ValueRange& range, RangeUnit unit);

}  // namespace nccl_roce::policy

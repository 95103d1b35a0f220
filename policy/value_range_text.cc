#include "policy/value_range_text.h"

#include "common/strings.h"

namespace nccl_roce::policy {

namespace {

StatusOr<uint64_t> parseValue(std::string_view text, RangeUnit unit) {
  if (unit == RangeUnit::kBytes) return parseByteSize(text);
  std::optional<uint64_t> value = parseUnsigned(trim(text));
  if (!value) return Status(StatusCode::kInvalidArgument, "'" + std::string(trim(text)) + "' is not a whole number");
  return *value;
}

std::string formatValue(uint64_t value, RangeUnit unit) {
  return unit == RangeUnit::kBytes ? formatByteSize(value) : std::to_string(value);
}

}  // namespace

StatusOr<ValueRange> parseValueRange(std::string_view text, RangeUnit unit) {
  std::string_view t = trim(text);
  ValueRange range;
  if (t == "*") return range;
  size_t dots = t.find("..");
  if (dots == std::string_view::npos) {
    auto value = parseValue(t, unit);
    if (!value.isOk()) return value.status();
    range.lo = range.hi = *value;
    return range;
  }
  std::string_view lo = trim(t.substr(0, dots));
  std::string_view rest = t.substr(dots + 2);
  bool inclusive = !rest.empty() && rest.front() == '=';
  std::string_view hi = trim(inclusive ? rest.substr(1) : rest);
  if (lo.empty() && hi.empty()) return Status(StatusCode::kInvalidArgument, "'..' needs at least one bound");
  if (inclusive && hi.empty()) return Status(StatusCode::kInvalidArgument, "'..=' needs an upper bound");
  if (!lo.empty()) {
    auto value = parseValue(lo, unit);
    if (!value.isOk()) return value.status();
    range.lo = *value;
  }
  if (!hi.empty()) {
    auto value = parseValue(hi, unit);
    if (!value.isOk()) return value.status();
    if (!inclusive && *value <= range.lo) {
      return Status(StatusCode::kInvalidArgument, std::string(*value < range.lo ? "inverted" : "empty") + " range '" +
                                                      std::string(t) + "': " + formatValue(range.lo, unit) + ".." +
                                                      formatValue(*value, unit) + " holds no value");
    }
    range.hi = inclusive ? *value : *value - 1;
  }
  if (range.lo > range.hi) {
    return Status(StatusCode::kInvalidArgument, "inverted range '" + std::string(t) +
                                                    "': " + formatValue(range.lo, unit) + " is above " +
                                                    formatValue(range.hi, unit));
  }
  return range;
}

std::string formatValueRange(const ValueRange& range, RangeUnit unit) {
  if (range.isAll()) return "*";
  if (range.lo == range.hi) return formatValue(range.lo, unit);
  std::string out = range.lo == 0 ? "" : formatValue(range.lo, unit);
  if (range.hi == std::numeric_limits<uint64_t>::max()) return out + "..";
  // Half-open when the exclusive bound reads better ("..64K" rather than "..=65535").
  std::string exclusive = formatValue(range.hi + 1, unit);
  std::string inclusive = formatValue(range.hi, unit);
  return exclusive.size() <= inclusive.size() ? out + ".." + exclusive : out + "..=" + inclusive;
}

}  // namespace nccl_roce::policy

#include "cli/verdict_options.h"

#include "common/strings.h"
#include "policy/value_range_text.h"

namespace nccl_roce::cli {

void addVerdictOptions(CLI::App& command, verdicts::Settings& settings, const std::string& units, int minUnitsFloor) {
  command
      .add_option("--confidence", settings.confidence,
                  "Confidence level of every interval; 1 minus it is the error rate each verdict controls")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  command
      .add_option("--min-effect", settings.minEffect,
                  "A verdict also needs the ratio at least this far from 1 (0.02 = 2%)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  command
      .add_option("--min-" + units, settings.minUnits,
                  "Fewest " + units + " per side for a verdict (at least " + std::to_string(minUnitsFloor) + ")")
      ->check(CLI::Range(minUnitsFloor, 1000000))
      ->capture_default_str();
}

Status parseSizeRange(const std::string& text, uint64_t* lo, uint64_t* hi) {
  const std::string accepted = "a size range such as 16K..64M (up to but not including 64M), 16K..=64M or 16K-64M";
  size_t dash = text.find('-');
  if (text.find("..") == std::string::npos && dash != std::string::npos) {
    StatusOr<uint64_t> a = parseByteSize(text.substr(0, dash));
    StatusOr<uint64_t> b = parseByteSize(text.substr(dash + 1));
    if (!a.isOk() || !b.isOk() || *a > *b)
      return Status(StatusCode::kInvalidArgument, "'" + text + "' is not " + accepted);
    *lo = *a;
    *hi = *b;
    return Status::ok();
  }
  StatusOr<policy::ValueRange> range = policy::parseValueRange(text, policy::RangeUnit::kBytes);
  if (!range.isOk()) {
    return Status(StatusCode::kInvalidArgument, range.status().message() + ": give " + accepted);
  }
  *lo = range->lo;
  *hi = range->hi;
  return Status::ok();
}

void addRangeOption(CLI::App& command, std::string& range) {
  range = kInferenceRange;
  command
      .add_option("--range", range,
                  "Inference range summarised, as policies write sizes: 16K..64M stops below 64M, 16K..=64M includes "
                  "it (16K-64M is read as 16K..=64M)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            uint64_t lo = 0, hi = 0;
            Status parsed = parseSizeRange(text, &lo, &hi);
            return parsed.isOk() ? std::string() : parsed.message();
          },
          "RANGE"));
}

}  // namespace nccl_roce::cli

#include "cli/verdict_options.h"

#include "common/strings.h"

namespace nccl_roce::cli {

void addVerdictOptions(CLI::App& command, verdicts::Settings& settings, const std::string& units,
                          int minUnitsFloor) {
  command.add_option("--confidence", settings.confidence,
                     "Confidence level of every interval; 1 minus it is the error rate each verdict controls")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  command.add_option("--min-effect", settings.minEffect,
                     "A verdict also needs the ratio at least this far from 1 (0.02 = 2%)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  command.add_option("--min-" + units, settings.minUnits,
                     "Fewest " + units + " per side for a verdict (at least " + std::to_string(minUnitsFloor) + ")")
      ->check(CLI::Range(minUnitsFloor, 1000000))
      ->capture_default_str();
}

bool parseSizeRange(const std::string& text, uint64_t* lo, uint64_t* hi) {
  size_t dash = text.find('-');
  if (dash == std::string::npos) return false;
  StatusOr<uint64_t> a = parseByteSize(text.substr(0, dash));
  StatusOr<uint64_t> b = parseByteSize(text.substr(dash + 1));
  if (!a.isOk() || !b.isOk() || *a > *b) return false;
  *lo = *a;
  *hi = *b;
  return true;
}

}  // namespace nccl_roce::cli

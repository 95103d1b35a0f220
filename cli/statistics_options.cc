#include "cli/statistics_options.h"

namespace nccl_roce::cli {

void addStatisticsOptions(CLI::App& command, stats::Settings& settings, const std::string& units,
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

}  // namespace nccl_roce::cli

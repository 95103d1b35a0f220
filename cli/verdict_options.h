// The statistical flags of every A/B command (`sweep compare`, `sweep fit`, `ab`), declared once so they read
// and check the same everywhere. Defaults are the command's own: whatever `settings` holds when called.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "verdicts/settings.h"

namespace nccl_roce::cli {

// --confidence, --min-effect and --min-UNITS (e.g. "replicates", "communicators"), the last no lower than
// minUnitsFloor: the fewest units the command's calibration accepts.
void addVerdictOptions(CLI::App& command, verdicts::Settings& settings, const std::string& units,
                          int minUnitsFloor);

// --range of `sweep compare` and `ab`: "LO-HI" with sizes such as 16K-64M, inclusive; false when it is not.
bool parseSizeRange(const std::string& text, uint64_t* lo, uint64_t* hi);

}  // namespace nccl_roce::cli

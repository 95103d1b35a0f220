// The statistical flags of every A/B command (`sweep compare`, `sweep fit`, `ab`), declared once so they read
// and check the same everywhere. Defaults are the command's own: whatever `settings` holds when called.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "verdicts/settings.h"

namespace nccl_roce::cli {

// --confidence, --min-effect and --min-UNITS (e.g. "replicates", "communicators"), the last no lower than
// minUnitsFloor: the fewest units the command's calibration accepts.
void addVerdictOptions(CLI::App& command, verdicts::Settings& settings, const std::string& units, int minUnitsFloor);

// The default --range of `sweep compare` and `ab`: the inference range, as the reports print it.
inline constexpr const char* kInferenceRange = "16K..=64M";

// --range of `sweep compare` and `ab`, in the range syntax of policy files (policy/value_range_text.h), so a rule's
// size can be pasted: "16K..64M" is 16 KiB up to but not including 64 MiB, "16K..=64M" includes it. "LO-HI" (an
// inclusive range, the form these commands took first) is read too; reports print the policy form. Bytes,
// inclusive, into *lo and *hi; an error that says what is accepted otherwise.
Status parseSizeRange(const std::string& text, uint64_t* lo, uint64_t* hi);

// --range, checked by CLI11 (a usage error when parseSizeRange refuses it), with the default kInferenceRange.
void addRangeOption(CLI::App& command, std::string& range);

}  // namespace nccl_roce::cli

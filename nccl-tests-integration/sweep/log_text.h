// Line-level helpers for reading nccl-tests output: removing launcher tags and splitting fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nccl_roce::sweep {

// Removes what launchers add around program output, wherever it appears in the line:
//   mpirun --tag-output        "[1,0]<stdout>:" (also in the middle of a row: a row is several printf calls)
//   mpirun --timestamp-output  "Thu Jul 18 15:41:05 2024<stdout>:"
//   srun --label               "  0: " at the start of the line
// and a trailing '\r'.
std::string stripLauncherTags(std::string_view line);

// Whitespace-separated fields (spaces and tabs).
std::vector<std::string_view> splitFields(std::string_view text);

// Numbers as nccl-tests prints them ("34.98", "105854", "1.2e+06", "0e+00"), locale-independent.
// nullopt for anything else, including "N/A", "inf" and "nan".
std::optional<double> parseDecimal(std::string_view token);

// Shortens a line for a message: at most `limit` characters, with "..." when cut.
std::string shorten(std::string_view text, size_t limit = 100);

}  // namespace nccl_roce::sweep

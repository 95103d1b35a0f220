// Small, strict string helpers shared by the sysfs reader, the policy parser and the CLI.
// Strict means: a value that does not parse entirely is an error, never a silent 0 (unlike atoi/strtoll).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace nccl_roce {

std::string_view trim(std::string_view text);
// Splits on every separator; empty fields are kept ("a,,b" -> {"a","","b"}).
std::vector<std::string_view> split(std::string_view text, char separator);
std::string toLower(std::string_view text);
bool startsWith(std::string_view text, std::string_view prefix);
bool endsWith(std::string_view text, std::string_view suffix);

// Decimal digits only (no sign, no spaces, no base prefix); nullopt on anything else or on overflow.
std::optional<uint64_t> parseUnsigned(std::string_view text);
// The same with an optional leading '-' (no '+'), within int64_t.
std::optional<int64_t> parseSigned(std::string_view text);

// `value` with `decimals` digits after the point, as printf's %.*f writes it in the C locale.
std::string formatFixed(double value, int decimals);
// The items with `separator` between them: {"a", "b"}, ", " -> "a, b".
std::string join(const std::vector<std::string>& items, std::string_view separator);

// Reading a line left to right: each call takes what it names from the front of *text, or fails and leaves *text
// as it was.
bool consumePrefix(std::string_view* text, std::string_view prefix);
// The decimal digits at the front, by parseUnsigned's rules.
std::optional<uint64_t> consumeUnsigned(std::string_view* text);
// Everything before `stop`, which must follow (it stays in *text).
std::optional<std::string_view> consumeUntil(std::string_view* text, std::string_view stop);

// Byte sizes as operators write them: "0", "4096", "64K", "4M", "1G", "2T", "16KiB", "8MB"
// (K, M, G, T are powers of 1024, as in nccl-tests' -b/-e). Errors name what was wrong, including
// values past 2^64-1.
StatusOr<uint64_t> parseByteSize(std::string_view text);
// Inverse for display: the largest unit that divides exactly ("64K", "1M", "1000").
std::string formatByteSize(uint64_t bytes);

// Communicator ids as every file, log line and label writes them: "0x" and 16 lowercase hex digits.
std::string formatHexId(uint64_t id);
// "0x" and 1 to 16 hex digits, either case; nullopt for anything else.
std::optional<uint64_t> parseHexId(std::string_view text);

// Milliseconds since the epoch as UTC to the millisecond, "2026-03-01T12:34:56.789Z" (a fixed width, so stamps
// also sort as text), and back; nullopt for anything else.
std::string formatUtcMillis(int64_t ms);
std::optional<int64_t> parseUtcMillis(std::string_view text);

// Natural order: digit runs compare as numbers, so mlx5_2 < mlx5_10 and rocep9s0 < rocep65s0.
bool naturalLess(std::string_view a, std::string_view b);

}  // namespace nccl_roce

#include "inspect/nccl_log_line.h"

#include <vector>

#include "common/strings.h"

namespace nccl_roce::inspect {

namespace {

// Each with the space that separates it from the prefix.
struct LevelMarker {
  std::string_view text;
  NcclLogLevel level;
};
constexpr LevelMarker kLevels[] = {{" NCCL INFO ", NcclLogLevel::kInfo},
                                   {" NCCL WARN ", NcclLogLevel::kWarn},
                                   {" NCCL TRACE ", NcclLogLevel::kTrace},
                                   {" NCCL ABORT ", NcclLogLevel::kAbort}};

}  // namespace

std::optional<NcclLogLine> parseNcclLogLine(std::string_view line) {
  std::optional<NcclLogLine> found;
  size_t earliest = std::string_view::npos;
  for (const LevelMarker& marker : kLevels) {
    // A line may also begin with the level, with no prefix and so no space before it.
    const bool first = startsWith(line, marker.text.substr(1));
    const size_t at = first ? 0 : line.find(marker.text);
    if (at == std::string_view::npos || (found && at >= earliest)) continue;
    earliest = at;
    const size_t after = at + marker.text.size() - (first ? 1 : 0);
    found = NcclLogLine{trim(line.substr(0, at)), marker.level, trim(line.substr(after))};
  }
  return found;
}

bool parseNcclLogOrigin(std::string_view prefix, std::string* host, int64_t* pid) {
  // "[dev]" is the last bracket; a WARN line's "file.cc:63" (and TRACE's time) may follow it.
  const std::string_view before = trim(prefix);
  const size_t dev = before.rfind(" [");
  if (dev == std::string_view::npos || before.find(']', dev) == std::string_view::npos) return false;
  std::string_view origin = trim(before.substr(0, dev));
  size_t space = origin.rfind(' ');
  if (space != std::string_view::npos) origin = origin.substr(space + 1);
  std::vector<std::string_view> parts = split(origin, ':');
  if (parts.size() < 3) return false;
  std::optional<uint64_t> value = parseUnsigned(parts[parts.size() - 2]);
  if (!value || !parseUnsigned(parts.back())) return false;
  *host = std::string(parts[parts.size() - 3]);
  *pid = static_cast<int64_t>(*value);
  return true;
}

std::optional<std::string_view> findNcclVersion(std::string_view text) {
  for (std::string_view marker : {std::string_view("NCCL version "), std::string_view("RCCL version ")}) {
    size_t pos = text.find(marker);
    if (pos == std::string_view::npos) continue;
    std::string_view rest = trim(text.substr(pos + marker.size()));
    std::string_view version = rest.substr(0, rest.find_first_of(" \t\r\n"));
    if (version.empty() || version[0] < '0' || version[0] > '9') continue;
    return version;
  }
  return std::nullopt;
}

std::string_view ncclRelease(std::string_view version) {
  return version.substr(0, version.find('+'));
}

}  // namespace nccl_roce::inspect

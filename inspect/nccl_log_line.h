// The shape of a line NCCL's logger writes (src/debug.cc), in one place for every reader of NCCL's output (the
// INFO-log reader here, the nccl-tests log parser in nccl-tests-integration/sweep/):
//   "host:pid:tid [dev] NCCL INFO message"
//   "host:pid:tid [dev] file.cc:63 NCCL WARN message"   (ABORT alike; TRACE adds a time before the file)
// A launcher may put its own tags in front ("[1,0]<stdout>:"), and nccl-tests prints the version line bare
// ("# NCCL version 2.22.3+cuda12.2").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nccl_roce::inspect {

enum class NcclLogLevel { kInfo, kWarn, kTrace, kAbort };

struct NcclLogLine {
  std::string_view prefix;  // what precedes the level, trimmed: "host:pid:tid [dev]" (and, for WARN, "file.cc:63")
  NcclLogLevel level = NcclLogLevel::kInfo;
  std::string_view message;  // what follows the level, trimmed
};

// The line's level and message where it is one of NCCL's (the earliest level marker in it wins); a line that
// begins with "NCCL INFO " or "NCCL WARN " has an empty prefix.
std::optional<NcclLogLine> parseNcclLogLine(std::string_view line);

// The process that wrote a line: host and pid from its prefix's "host:pid:tid" (possibly behind a launcher's tags
// joined by ':'), the token before "[dev]". False where the prefix has none.
bool parseNcclLogOrigin(std::string_view prefix, std::string* host, int64_t* pid);

// "2.22.3+cuda12.2" from "NCCL version 2.22.3+cuda12.2" (or RCCL's) anywhere in the text; nullopt where no such
// phrase is followed by a version.
std::optional<std::string_view> findNcclVersion(std::string_view text);
// The release of such a version, "2.22.3": what precedes its build tag.
std::string_view ncclRelease(std::string_view version);

}  // namespace nccl_roce::inspect

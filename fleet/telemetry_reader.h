// Reads a per-process statistics file or one of its part files (schema nccl-roce.stats/3 written by the plugin,
// and /2 of earlier versions; docs/ab-testing.md). In /3 every entry names itself (host, pid, entry number) and
// says whether it was live (a checkpoint) or final and when it was last updated, so several states of one
// entry can be told apart (fleet/fleet.h keeps the latest); a /2 entry is final. Every problem is an error naming
// the file and what is wrong: a truncated or hand-edited file never feeds a verdict.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

inline constexpr const char* kTelemetrySchema = "nccl-roce.stats/3";
inline constexpr const char* kTelemetrySchemaV2 = "nccl-roce.stats/2";

StatusOr<std::vector<CommunicatorRecord>> parseTelemetryFile(const std::string& text, const std::string& file);
StatusOr<std::vector<CommunicatorRecord>> readTelemetryFile(const std::string& path);

}  // namespace nccl_roce::fleet

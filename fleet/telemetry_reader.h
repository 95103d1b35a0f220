// Reads a per-process statistics file (schema nccl-roce.stats/2, written by the plugin; docs/ab-testing.md).
// Every problem is an error naming the file and what is wrong: a truncated or hand-edited file never feeds a
// verdict.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

inline constexpr const char* kTelemetrySchema = "nccl-roce.stats/2";

StatusOr<std::vector<CommunicatorRecord>> parseTelemetryFile(const std::string& text, const std::string& file);
StatusOr<std::vector<CommunicatorRecord>> readTelemetryFile(const std::string& path);

}  // namespace nccl_roce::fleet

// Reads a per-process statistics file or one of its part files into fleet records: telemetry/stats_file.h parses
// it (schema nccl-roce.stats/4, and /3 and /2 of earlier versions), and each entry becomes one record per
// communicator with its timings per clock and cell as count and bin sum. From /3 every entry names itself (host, pid,
// entry number) and says whether it was live (a checkpoint) or final, so several states of one entry can be told apart
// (fleet/fleet.h keeps the latest); a /2 entry is final. Every problem is an error naming the file and what is
// wrong: a truncated or hand-edited file never feeds a verdict.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"
#include "telemetry/switchback.h"

namespace nccl_roce::fleet {

// A switchback communicator rank's timings as its record holds them (also what its Prometheus series give).
SwitchbackRecord switchbackRecordOf(const telemetry::SwitchbackTimings& timings);

StatusOr<std::vector<CommunicatorRecord>> parseTelemetryFile(const std::string& text, const std::string& file);
StatusOr<std::vector<CommunicatorRecord>> readTelemetryFile(const std::string& path);

}  // namespace nccl_roce::fleet

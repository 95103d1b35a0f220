// `sweep parse` output: PerfLog as JSON (schema in docs/sweep.md, "parse output") or as CSV (one line per
// row, for spreadsheets and pandas).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

inline constexpr const char* kParseSchema = "nccl-roce.sweep.parse/1";

nlohmann::json perfLogToJson(const PerfLog& log);
// {"schema": ..., "files": [perfLogToJson...]}
nlohmann::json perfLogsToJson(const std::vector<PerfLog>& logs);

// Dumps any sweep document (parse, compare) without throwing: strings come from the logs (hostnames, device
// names, environment values, file names) and need not be UTF-8; invalid bytes become U+FFFD.
std::string dumpJson(const nlohmann::json& document, int indent = 2);

std::string perfLogsCsvHeader();
std::string perfLogToCsv(const PerfLog& log);

}  // namespace nccl_roce::sweep

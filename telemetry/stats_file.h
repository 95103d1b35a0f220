// The statistics file's format, written and read here only: NCCL_ROCE_STATS=PREFIX makes each process write
// PREFIX.<pid>.json (and part files PREFIX.<pid>.final-<n>.json), one entry per communicator
// (docs/ab-testing.md, share/nccl-roce/schemas/stats.schema.json). The plugin renders entries with
// renderStatsEntry as they stand, and the fleet readers parse whole files back with parseStatsFile into the same
// typed entries: parseStatsFile(render(x)) gives x back.
//
// Schema nccl-roce.stats/3 names each entry (the header's host and pid, the entry's number) and says whether it
// was a checkpoint of a live communicator or its final state; nccl-roce.stats/2, which earlier versions wrote at
// finalize only, has neither: its entries are final and never taken for one another. Schema /4 adds, to a
// switchback's timings, the schedule's turns per round and the collectives captured into CUDA graphs by turn of
// capture (telemetry/switchback.h); /3 files read as switchbacks whose captures were not told apart. Every problem
// is an error naming the file, the entry and what is wrong: a truncated or hand-edited file never feeds a verdict.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "telemetry/communicator_snapshot.h"

namespace nccl_roce::telemetry {

inline constexpr const char* kStatsSchema = "nccl-roce.stats/4";
inline constexpr const char* kStatsSchemaV3 = "nccl-roce.stats/3";
inline constexpr const char* kStatsSchemaV2 = "nccl-roce.stats/2";

struct StatsEntry {
  uint64_t number = 0;    // "entry": unique in its process, from 1 (0: schema /2, which has none)
  bool live = false;      // "state": "live" for a checkpoint, "final" once every producer finished
  int64_t updatedMs = 0;  // "updated": when its figures were taken, milliseconds since the epoch (0 in /2)
  CommunicatorSnapshot comm;
};

struct StatsFileHeader {
  std::string schema = kStatsSchema;
  std::string host;  // gethostname() of the writing process ("" in /2)
  int64_t pid = 0;
};

struct StatsFile {
  StatsFileHeader header;
  std::vector<StatsEntry> entries;
};

// One entry as it stands in the file's list (indented as the file is).
std::string renderStatsEntry(const StatsEntry& entry);
// A whole file from entries rendered already (a process keeps its final entries only as text).
std::string renderStatsFile(const StatsFileHeader& header, const std::vector<const std::string*>& entries);

// A file of schema /4, /3 or /2; `name` (its path) starts every error message.
StatusOr<StatsFile> parseStatsFile(std::string_view text, const std::string& name);

}  // namespace nccl_roce::telemetry

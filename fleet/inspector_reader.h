// Reads NVIDIA Inspector's JSON dumps (NCCL's plugins/profiler/inspector, output format "v4.0"): one JSON object
// per collective, with the communicator ("header": id, rank, n_ranks, nnodes) and its time ("coll_perf": coll,
// coll_msg_size_bytes, coll_exec_time_us, coll_timing_source). Objects follow one another, one per line or
// pretty-printed over many; nlohmann reads them as a stream of values, so strings hold any escape JSON allows.
//
// What is not a timed collective is counted, never an error: point-to-point records, collectives the tuner never
// decides (AllGatherV, ...), durations of zero. A last object cut short by the end of the text (the append-only
// dump of a process that was killed) is skipped and said. Another format version, or a malformed object before
// the end, is an error naming the file and the object's line.
//
// Inspector records carry no arm: `nccl-roce ab` joins them to our statistics files by communicator id.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

inline constexpr const char* kInspectorFormat = "v4.0";

struct InspectorDump {
  std::vector<CommunicatorRecord> records;  // one per (communicator, rank) with a timed collective
  uint64_t pointToPoint = 0;                // records of sends and receives, not timed here
  uint64_t otherCollectives = 0;            // collectives the tuner never decides (AllGatherV, ...)
  std::string truncatedLast;                // "" or where the cut-short last object starts ("line 7")
};

StatusOr<InspectorDump> parseInspectorDump(const std::string& text, const std::string& file);

}  // namespace nccl_roce::fleet

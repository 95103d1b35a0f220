// Reads NVIDIA Inspector's JSON dumps (NCCL's plugins/profiler/inspector, output format "v4.0"): one JSON object
// per collective, with the communicator ("header": id, rank, n_ranks, nnodes) and its kernel time
// ("coll_perf": coll, coll_msg_size_bytes, coll_exec_time_us). Objects follow one another, one per line or
// pretty-printed. Point-to-point records are skipped. Another format version, or a malformed object, is an
// error naming the file (and the object's line).
//
// Inspector records carry no arm: `nccl-roce ab` joins them to our statistics files by communicator id.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

inline constexpr const char* kInspectorFormat = "v4.0";

// One record per (communicator, rank) found in the text.
StatusOr<std::vector<CommunicatorRecord>> parseInspectorDump(const std::string& text, const std::string& file);
StatusOr<std::vector<CommunicatorRecord>> readInspectorDump(const std::string& path);

}  // namespace nccl_roce::fleet

// Recognisers for the non-table lines of nccl-tests output: the parameter line, device lines, the settings NCCL
// reports and the footer (NCCL's log lines and version: inspect/nccl_log_line.h). Each takes a line already stripped of
// launcher tags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

// "nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1
//  validation: 1 graph: 0" (the text after '#'; fields of other eras are simply absent).
std::optional<RunParameters> parseParameterLine(std::string_view body);

// "Rank  0 Group  0 Pid  25 on host device  0 [0x53] NVIDIA H100 80GB HBM3" (2022+),
// "Rank  0 Pid 25 on host device  0 [0x53] name" (2019-2022), "Rank  0 on host device  0 [0x53] name" (2017).
std::optional<DeviceLine> parseDeviceLine(std::string_view body);

// "22902" (nccl-headers= / nccl-library=) -> "2.29.2"; codes before 2.9 used major*1000+minor*100+patch.
std::string ncclVersionFromCode(int64_t code);

// "NCCL_ALGO set by environment to Ring" -> {"NCCL_ALGO", "Ring"} (a trailing '.' is dropped).
std::optional<std::pair<std::string, std::string>> parseSetByEnvironment(std::string_view message);

// "all_reduce_perf", "/opt/nccl-tests/build/all_reduce_perf_mpi" -> "all_reduce"; "" when not a test name.
std::string collectiveFromProgram(std::string_view program);
// The collective named by the first "*_perf" word of a command line, or "".
std::string collectiveFromCommand(std::string_view command);

// Element size in bytes of an nccl-tests type name, or 0 when unknown.
int typeSize(std::string_view type);

}  // namespace nccl_roce::sweep

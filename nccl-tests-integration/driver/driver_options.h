// Command line of nccl-roce-allreduce-driver: nccl-tests' flags for what is measured (-b -e -f -i -n -w -c -d -G),
// plus how the ranks are started: all of them by the driver itself (--nranks N), or one per process by a
// launcher (--rank R --nranks N --rendezvous FILE, as run-sweep.sh --launcher local passes them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace nccl_roce::driver {

// Element types with exact sums for the validation pattern (driver/check_pattern.h).
enum class DataType { kFloat, kDouble };
const char* dataTypeName(DataType type);  // as nccl-tests prints it: "float", "double"
int dataTypeSize(DataType type);

struct DriverOptions {
  uint64_t minBytes = 32u << 20;  // nccl-tests' defaults: one size of 32 MiB
  uint64_t maxBytes = 32u << 20;
  uint64_t stepFactor = 1;  // -f; 1 (or -i given) means step by stepBytes
  uint64_t stepBytes = 1u << 20;
  bool stepIsFactor = false;
  int iters = 20;
  int warmupIters = 1;
  bool check = true;  // -c 1: count wrong elements after each size (the #wrong columns); -c 0: N/A
  DataType type = DataType::kFloat;
  // -G N: the timed iterations of each size captured into a CUDA graph (once out of place, once in place) and the
  // graph launched N times, as nccl-tests' -G does; 0: every call eager. vLLM's decode path: captured once, replayed.
  int graphLaunches = 0;

  int nranks = 1;
  std::optional<int> rank;      // set: this process is one rank started by a launcher
  std::string rendezvous;       // file through which rank 0 hands NCCL's unique id to the others
  bool distinctHostId = false;  // self-launch: NCCL_HOSTID=<host>-rank<R> per rank, so each looks like a node
  std::optional<int> device;    // CUDA device; default rank % device count
  int timeoutSeconds = 120;     // waiting for the unique id
  bool help = false;
};

// The nccl-tests flags (short and long forms) and ours. Errors name the flag and what was wrong.
StatusOr<DriverOptions> parseDriverOptions(const std::vector<std::string>& args);

// The message sizes, as nccl-tests steps them: from minBytes, times stepFactor (or plus stepBytes) while not
// above maxBytes; each rounded down to whole elements. At most 4096 sizes.
std::vector<uint64_t> sweepSizes(const DriverOptions& options);

std::string driverUsage();

}  // namespace nccl_roce::driver

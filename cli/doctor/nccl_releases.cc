#include "cli/doctor/nccl_releases.h"

#include "common/log.h"

namespace nccl_roce::doctor {

namespace {

// From this version code on (the first release of a row of docs/nccl-versions.md's table), NCCL takes these.
struct Row {
  int from;
  const char *net, *tuner, *profiler, *env;
};

const Row kRows[] = {
    {21900, "ncclNetPlugin_v7", "", "", ""},
    {22000, "ncclNetPlugin_v8", "", "", ""},
    {22100, "ncclNetPlugin_v8", "ncclTunerPlugin_v2", "", ""},
    {22200, "ncclNetPlugin_v8", "ncclTunerPlugin_v3", "", ""},
    {22300, "ncclNetPlugin_v8", "ncclTunerPlugin_v3", "ncclProfiler_v1", ""},
    {22400, "ncclNetPlugin_v9", "ncclTunerPlugin_v4", "ncclProfiler_v2", ""},
    {22600, "ncclNetPlugin_v10", "ncclTunerPlugin_v4", "ncclProfiler_v3", ""},
    {22700, "ncclNetPlugin_v10", "ncclTunerPlugin_v4", "ncclProfiler_v4", ""},
    {22800, "ncclNetPlugin_v11", "ncclTunerPlugin_v5", "ncclProfiler_v5", ""},
    {22807, "ncclNetPlugin_v11", "ncclTunerPlugin_v5", "ncclProfiler_v5", "ncclEnvPlugin_v1"},
    {22900, "ncclNetPlugin_v11", "ncclTunerPlugin_v5", "ncclProfiler_v6", "ncclEnvPlugin_v1"},
    {23000, "ncclNetPlugin_v12", "ncclTunerPlugin_v5", "ncclProfiler_v6", "ncclEnvPlugin_v1"},
    {23002, "ncclNetPlugin_v12", "ncclTunerPlugin_v6", "ncclProfiler_v6", "ncclEnvPlugin_v1"},
    {23005, "ncclNetPlugin_v12", "ncclTunerPlugin_v6", "ncclProfiler_v6", "ncclEnvPlugin_v2"},
    {23100, "ncclNetPlugin_v12", "ncclTunerPlugin_v6", "ncclProfiler_v7", "ncclEnvPlugin_v2"},
    {23206, "ncclNetPlugin_v12", "ncclTunerPlugin_v7", "ncclProfiler_v7", "ncclEnvPlugin_v2"},
};

}  // namespace

TakenTables tablesTakenBy(int version) {
  TakenTables taken;
  for (const Row& row : kRows) {
    if (version < row.from) break;
    taken = {row.net, row.tuner, row.profiler, row.env};
  }
  return taken;
}

std::string ncclVersionText(int version) {
  return format("%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}

}  // namespace nccl_roce::doctor

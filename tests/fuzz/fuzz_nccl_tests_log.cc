// Fuzz target: nccl-tests output as `sweep parse` reads it (any era's layout, launcher tags, truncation), then
// everything downstream of a parsed log: its JSON and CSV renderings and a fit over it (which reads every
// run's environment and rows).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/sweep/fit.h"
#include "nccl-tests-integration/sweep/perf_log_json.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::sweep;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  PerfLog log = parsePerfLog(text, "fuzz.log");
  (void)dumpJson(perfLogToJson(log));  // what `sweep parse --format json` prints
  (void)perfLogToCsv(log);
  FitOptions options;
  options.resamples = 50;  // the bootstrap's cost, not its precision, is what matters here
  options.minReplicates = 1;
  (void)fitPolicy(std::vector<PerfLog>{log, log}, options);
  return 0;
}

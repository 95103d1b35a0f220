// Fuzz target: nccl-tests output as `sweep parse` reads it (any era's layout, launcher tags, truncation), then
// everything downstream of a parsed log: its JSON and CSV renderings, a fit and a comparison over it (which
// read every run's environment and rows).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/compare_report.h"
#include "nccl-tests-integration/sweep/fit.h"
#include "nccl-tests-integration/sweep/perf_log_json.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nccl_roce::sweep;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  PerfLog log = parsePerfLog(text, "fuzz.log");
  (void)dumpJson(perfLogToJson(log));  // what `sweep parse --format json` prints
  (void)perfLogToCsv(log);
  // As the replicates of a fit (identical copies: no spread, so every statistic's refusal path too) and of
  // both sides of a comparison.
  (void)fitPolicy(std::vector<PerfLog>(kFitMinReplicates, log), FitOptions{});
  SampleSet samples = collectSamples({log, log}, Placement::kOutOfPlace);
  (void)comparisonToJson(compareSweeps(samples, samples, CompareOptions{}));
  return 0;
}

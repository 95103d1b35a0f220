// `nccl-roce sweep compare` on files, as an operator runs it: two sides of 10 replicate logs read from disk,
// parsed, collected and compared. Two shapes: a typical sweep (all_reduce_perf -b 8 -e 16G -f 2: 32 sizes,
// 16 ranks) and a fine-grained one (4,096 sizes per log, -i steps). Counters: the logs' total size, and the
// process's peak resident memory after the runs (getrusage), to check that memory follows the input.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/file.h"
#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/sweep/synthetic_sweep.h"

namespace nccl_roce::sweep {
namespace {

struct Sweeps {
  explicit Sweeps(std::vector<uint64_t> sizes) {
    for (const char* side : {"a", "b"}) {
      for (int r = 1; r <= 10; ++r) {
        testing::SyntheticRun run;
        run.sizes = sizes;
        double noise = 1 + 0.002 * r;
        run.timeUs = [noise](uint64_t s) { return testing::baseTimeUs(s) * noise; };
        std::string text = testing::syntheticLogText(run);
        bytes += text.size();
        std::string path = dir.writeFile(std::string(side) + "/rep-" + std::to_string(r) + ".log", text);
        (side[0] == 'a' ? a : b).push_back(path);
      }
    }
  }
  nccl_roce::testing::TempDir dir;
  std::vector<std::string> a, b;
  size_t bytes = 0;
};

std::vector<uint64_t> typicalSizes() {
  return testing::powersOfTwo(8, uint64_t{16} << 30);
}

std::vector<uint64_t> fineSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t s = 4096; sizes.size() < 4096; s += 4096) sizes.push_back(s);
  return sizes;
}

void compareFromDisk(benchmark::State& state, const Sweeps& sweeps) {
  for (auto _ : state) {
    StatusOr<std::vector<PerfLog>> a = readPerfLogs(sweeps.a), b = readPerfLogs(sweeps.b);
    Comparison c = compareSweeps(collectSamples(*a, Placement::kOutOfPlace), collectSamples(*b, Placement::kOutOfPlace),
                                 CompareOptions{});
    if (c.series.size() != 1) state.SkipWithError("the comparison found no common series");
    benchmark::DoNotOptimize(c);
  }
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  state.counters["input_KiB"] = static_cast<double>(sweeps.bytes) / 1024;
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024;
}

void BM_CompareTenAgainstTenTypical(benchmark::State& state) {
  static Sweeps sweeps(typicalSizes());
  compareFromDisk(state, sweeps);
}
BENCHMARK(BM_CompareTenAgainstTenTypical)->Unit(benchmark::kMillisecond);

void BM_CompareTenAgainstTenFineGrained(benchmark::State& state) {
  static Sweeps sweeps(fineSizes());
  compareFromDisk(state, sweeps);
}
BENCHMARK(BM_CompareTenAgainstTenFineGrained)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nccl_roce::sweep

BENCHMARK_MAIN();

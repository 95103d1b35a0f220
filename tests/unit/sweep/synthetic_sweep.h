// Synthetic nccl-tests logs with known answers: a time model per size, a replicate's noise factor, and the
// environment a runner would record. Written in the 2022+ layout, parsed by the real parser.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nccl-tests-integration/sweep/perf_log.h"
#include "nccl-tests-integration/sweep/perf_log_parser.h"

namespace nccl_roce::sweep::testing {

struct SyntheticRun {
  std::vector<uint64_t> sizes;
  std::function<double(uint64_t)> timeUs;  // out-of-place and in-place time at a size
  int ranks = 16;
  int nodes = 2;
  std::map<std::string, std::string> environment;  // written as the runner's "# nccl-roce-env:" lines
};

inline std::vector<uint64_t> powersOfTwo(uint64_t from, uint64_t to) {
  std::vector<uint64_t> sizes;
  for (uint64_t s = from; s <= to; s *= 2) sizes.push_back(s);
  return sizes;
}

inline std::string syntheticLogText(const SyntheticRun& run) {
  std::string out;
  for (const auto& [name, value] : run.environment) out += "# nccl-roce-env: " + name + "=" + value + "\n";
  out += "# nccl-roce-cmd: mpirun -np " + std::to_string(run.ranks) + " ./build/all_reduce_perf -b 8 -e 64M\n";
  out +=
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < run.ranks; ++r) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 1000 + r,
                  ("node" + std::to_string(r * run.nodes / run.ranks)).c_str(), r % 8, 0x19 + r % 8);
    out += line;
  }
  out +=
      "#\n#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
      "busbw  #wrong\n";
  for (uint64_t size : run.sizes) {
    double t = run.timeUs(size);
    double algbw = static_cast<double>(size) / t / 1e3;
    double busbw = algbw * 2.0 * (run.ranks - 1) / run.ranks;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%12llu  %12llu     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  "
                  "%6.2f       0\n",
                  static_cast<unsigned long long>(size), static_cast<unsigned long long>(size / 4), t, algbw, busbw, t,
                  algbw, busbw);
    out += line;
  }
  out += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1 \n#\n";
  return out;
}

inline PerfLog syntheticLog(const SyntheticRun& run, const std::string& name = "synthetic.log") {
  return parsePerfLog(syntheticLogText(run), name);
}

// A latency-bandwidth model of all-reduce time: 20 us + size / 40 GB/s.
inline double baseTimeUs(uint64_t size) {
  return 20.0 + static_cast<double>(size) / 40e3;
}

}  // namespace nccl_roce::sweep::testing

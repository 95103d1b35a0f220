// `nccl-roce ab plan --graphs` and `ab plan --stats`: what `ab` will say about a switchback's collectives replayed
// from CUDA graphs (verdicts/capture_plan.h), per size bucket: how many capture rounds the layout gives and the
// chance of a verdict on the effect, from the capture layout and the position effects given, or from the units a
// statistics file of the running experiment shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nccl_roce::cli {

struct GraphPlanOptions {
  std::string graphs;                 // "vllm", "vllm-current" or batch sizes "1,2,4,8-512/8"
  std::vector<std::string> stats;     // statistics files or directories of a running switchback
  uint64_t bytesPerBatch = 16 << 10;  // one batch element's share of an all-reduce
  int layers = 32;
  bool embedding = false;  // one more all-reduce first in every graph
  int warmups = 0;         // eager forwards before each capture
  double stepSkew = 1, mlpFactor = 1, positionNoise = 0;
  double replaysPerGraph = 300;
  int draws = 400;
};

// The plan as text, or an error message (prefix "error: ") for bad options; `weights` as --weights gives them.
std::string planGraphs(const GraphPlanOptions& g, const std::vector<uint32_t>& weights, uint32_t block,
                       uint32_t washout, int communicators, double effect, double confidence, double power,
                       double noise, int* exitCode);

}  // namespace nccl_roce::cli

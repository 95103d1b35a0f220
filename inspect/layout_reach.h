// Which of a serving job's communicators cross RoCE, and which of them nccl-roce's tuner, profiler and A/B loop
// reach: the operator's first question, from the parallel layout alone (docs/quickstart.md, "Which layouts it
// helps"). Ranks are laid out as vLLM and SGLang lay them, tensor parallel fastest, then pipeline, then data
// parallel, filling each node's GPUs in order.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace nccl_roce::inspect {

struct Layout {
  int tensorParallel = 1, pipelineParallel = 1, dataParallel = 1;
  bool expertParallel = false;  // MoE experts over the data x tensor parallel ranks (all-to-all)
  int gpusPerNode = 8;
};

// One kind of communicator the engine creates, and what reaches it.
struct CommunicatorReach {
  std::string group;    // "tensor parallel", "pipeline parallel", ...
  int size = 0;         // ranks in each
  int count = 0;        // how many such communicators the job has
  int spanning = 0;     // of them, those whose ranks sit on more than one node: their traffic crosses RoCE
  std::string traffic;  // what NCCL runs on it
  bool tuned = false;   // whether NCCL asks a tuner about that traffic (collectives, not point-to-point)
};

// The layout's communicators of more than one rank, in the order the engine makes them. kInvalidArgument for a
// layout that does not fill whole nodes (more GPUs than one node holds, in a number that is no multiple of it).
StatusOr<std::vector<CommunicatorReach>> layoutReach(const Layout& layout);

// For people: one line per kind of communicator, then what it means for the resolver and the A/B loop.
std::string layoutReachText(const Layout& layout, const std::vector<CommunicatorReach>& reach);

}  // namespace nccl_roce::inspect

#include "inspect/layout_reach.h"

#include <set>

#include "common/log.h"

namespace nccl_roce::inspect {

namespace {

// Ranks of one communicator: `size` of them from `first`, `stride` apart.
bool spansNodes(int first, int size, int stride, int gpusPerNode) {
  std::set<int> nodes;
  for (int i = 0; i < size; ++i) nodes.insert((first + i * stride) / gpusPerNode);
  return nodes.size() > 1;
}

// Every communicator of a group kind: ranks that differ only in one coordinate, `size` of them `stride` apart.
CommunicatorReach groups(const Layout& l, std::string name, int size, int stride, std::string traffic, bool tuned) {
  const int world = l.tensorParallel * l.pipelineParallel * l.dataParallel;
  CommunicatorReach r{std::move(name), size, 0, 0, std::move(traffic), tuned};
  for (int first = 0; first < world; ++first) {
    // The group's first rank: its coordinate along this stride is 0.
    if ((first / stride) % size != 0) continue;
    ++r.count;
    r.spanning += spansNodes(first, size, stride, l.gpusPerNode);
  }
  return r;
}

}  // namespace

StatusOr<std::vector<CommunicatorReach>> layoutReach(const Layout& l) {
  if (l.tensorParallel < 1 || l.pipelineParallel < 1 || l.dataParallel < 1 || l.gpusPerNode < 1) {
    return Status(StatusCode::kInvalidArgument, "every size must be at least 1");
  }
  const int world = l.tensorParallel * l.pipelineParallel * l.dataParallel;
  if (world > l.gpusPerNode && world % l.gpusPerNode != 0) {
    return Status(StatusCode::kInvalidArgument,
                  std::to_string(world) + " GPUs do not fill whole nodes of " + std::to_string(l.gpusPerNode));
  }
  std::vector<CommunicatorReach> out;
  if (l.tensorParallel > 1) {
    out.push_back(groups(l, "tensor parallel", l.tensorParallel, 1, "all-reduce (and all-gather) of activations",
                         /*tuned=*/true));
  }
  if (l.pipelineParallel > 1) {
    out.push_back(groups(l, "pipeline parallel", l.pipelineParallel, l.tensorParallel,
                         "send and receive between stages", /*tuned=*/false));
  }
  if (l.expertParallel && l.dataParallel * l.tensorParallel > 1) {
    // Experts spread over data x tensor parallel ranks of one pipeline stage: vLLM's and SGLang's EP group.
    CommunicatorReach ep{"expert parallel",
                         l.dataParallel * l.tensorParallel,
                         0,
                         0,
                         "all-to-all of tokens (point-to-point in NCCL; DeepEP uses NVSHMEM instead)",
                         false};
    const int stageRanks = l.tensorParallel;
    for (int stage = 0; stage < l.pipelineParallel; ++stage) {
      ++ep.count;
      std::set<int> nodes;
      for (int d = 0; d < l.dataParallel; ++d) {
        for (int t = 0; t < stageRanks; ++t) {
          int rank = d * l.pipelineParallel * l.tensorParallel + stage * l.tensorParallel + t;
          nodes.insert(rank / l.gpusPerNode);
        }
      }
      ep.spanning += nodes.size() > 1;
    }
    out.push_back(ep);
  } else if (l.dataParallel > 1) {
    out.push_back(groups(l, "data parallel", l.dataParallel, l.tensorParallel * l.pipelineParallel,
                         "a small all-reduce per step to keep replicas in step (MoE); none for dense models",
                         /*tuned=*/true));
  }
  if (world > 1) out.push_back(groups(l, "world", world, 1, "barriers and set-up only", /*tuned=*/true));
  return out;
}

std::string layoutReachText(const Layout& l, const std::vector<CommunicatorReach>& reach) {
  const int world = l.tensorParallel * l.pipelineParallel * l.dataParallel;
  const int nodes = world <= l.gpusPerNode ? 1 : world / l.gpusPerNode;
  std::string out = format("layout: TP%d x PP%d x DP%d%s on %d node%s of %d GPUs\n", l.tensorParallel,
                           l.pipelineParallel, l.dataParallel, l.expertParallel ? " with expert parallelism" : "",
                           nodes, nodes == 1 ? "" : "s", l.gpusPerNode);
  bool tunedOnRoce = false, anyOnRoce = false;
  for (const CommunicatorReach& r : reach) {
    const bool onRoce = r.spanning > 0;
    anyOnRoce |= onRoce;
    tunedOnRoce |= onRoce && r.tuned && r.group != "world";
    out +=
        format("%s: %d communicator%s of %d ranks, %s; %s; %s\n", r.group.c_str(), r.count, r.count == 1 ? "" : "s",
               r.size, r.traffic.c_str(),
               onRoce ? (r.spanning == r.count ? "crosses RoCE" : format("%d of them cross RoCE", r.spanning).c_str())
                      : "stays inside a node",
               r.tuned ? (onRoce ? "tuner, profiler and A/B reach it" : "tuner, profiler and A/B reach it (on NVLink)")
                       : "never asked of a tuner, not timed");
  }
  if (!anyOnRoce) {
    out += "verdict: nothing crosses RoCE; nccl-roce has nothing to resolve or tune on the network\n";
  } else if (tunedOnRoce) {
    out +=
        "verdict: the resolver sets up RoCE, and tuner-decided collectives cross it: policies and A/B "
        "experiments act on the network traffic\n";
  } else {
    out +=
        "verdict: the resolver sets up RoCE; the traffic on it is point-to-point (or set-up), which no tuner "
        "decides and no experiment times: adopt the resolver, leave policies at their default\n";
  }
  return out;
}

}  // namespace nccl_roce::inspect

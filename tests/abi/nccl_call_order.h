// Which getCollInfo calls NCCL makes for what a rank enqueues, modelled on NCCL 2.30.7 and the 2.31 line
// (docs/ab-testing.md, "Why every rank counts the same calls"), so that tests can drive several ranks of one
// communicator through the tuner exactly as NCCL would:
// - a launch (one collective, or an ncclGroupStart/End of several) is one ncclPrepareTasks: its collectives sorted
//   by size, largest first, binned by (function, operation, data type), and each bin cut into aggregates whose
//   collectives carry more than a quarter of the bytes of the aggregate's first; one call per aggregate, with the
//   aggregate's bytes and as many pipelined operations as it holds collectives (src/enqueue.cc:331-441);
// - broadcasts from two or more roots in one launch are one all-gather call for the largest of them, pipeOps 1, no
//   registered buffer (src/scheduler/allgatherv_sched.cc:54); from one root they are ordinary collectives;
// - a collective on symmetric-window buffers first makes the 2.31 symmetric query, whose table offers nothing
//   (src/tuning/tuning.cc:158), then the ordinary call of the LL fallback;
// - regBuff is 1 while a CUDA graph is captured (NCCL_GRAPH_REGISTER), else what this rank registered: every rank's
//   own business (ncclCommRegister is local);
// - replaying a captured graph makes no call at all, and neither do point-to-point operations.
#pragma once

#include <cstddef>
#include <vector>

namespace nccl_roce::testing {

struct EnqueuedCollective {
  int function = 0;  // ncclFunc_t
  size_t bytes = 0;
  int op = 0, datatype = 0;
  int root = 0;            // broadcasts
  bool symmetric = false;  // both buffers in symmetric windows (windows are registered by every rank together)
};

// One ncclGroupEnd's worth of collectives (a lone collective is a group of one).
struct Launch {
  std::vector<EnqueuedCollective> collectives;
  bool capturing = false;  // inside cudaStreamBeginCapture .. EndCapture
};

struct TunerCall {
  int function = 0;
  size_t bytes = 0;
  int pipeOps = 0;
  int regBuff = 0;
  bool offersNothing = false;  // the symmetric query: every entry of its table is -1
};

// The calls NCCL makes for `launch` on a rank whose own buffers are registered (`registered`) or not.
std::vector<TunerCall> tunerCallsOf(const Launch& launch, bool registered);

}  // namespace nccl_roce::testing

// Which getCollInfo calls NCCL makes for what a rank enqueues, modelled on NCCL 2.30.7 and on 2.31.2 (whose call
// sites 2.32 keeps: docs/nccl-versions.md, "NCCL 2.31 and 2.32"), so that tests can drive several ranks of one
// communicator through the tuner exactly as NCCL would (docs/ab-testing.md, "Why every rank counts the same calls"):
// - a launch (one collective, or an ncclGroupStart/End of several) is one ncclPrepareTasks: its collectives sorted
//   by size, largest first, binned by (function, operation, data type), and each bin cut into aggregates whose
//   collectives carry more than a quarter of the bytes of the aggregate's first; one call per aggregate, with the
//   aggregate's bytes and as many pipelined operations as it holds collectives (2.30.7 src/enqueue.cc:331-441);
// - broadcasts from two or more roots in one launch are one all-gather call for the largest of them, pipeOps 1, no
//   registered buffer (src/scheduler/allgatherv_sched.cc:54); from one root they are ordinary collectives;
// - collectives on symmetric-window buffers go to the symmetric scheduler first, in batches of one (function,
//   operation, type); what NCCL's symmetric model picks for a batch decides the calls (SymmetricKernel below);
//   NCCL 2.31 asks first with a table offering nothing (pipeOps 0), and both lines may ask with the ordinary table to
//   see whether NCCL's own choice is LL; a batch that falls back joins the ordinary collectives, after them;
// - from 2.31 a collective with a per-call algorithm selection (ncclCollConfig_t) is asked about with the table of
//   that selection, and again with the whole table when nothing in it can run;
// - regBuff is 1 while a CUDA graph is captured (NCCL_GRAPH_REGISTER), else what this rank registered: every rank's
//   own business (ncclCommRegister is local);
// - replaying a captured graph makes no call at all, and neither do point-to-point operations.
// Whether a symmetric batch falls back can depend on the tuner's answer, so the calls are made through a callback
// that returns what NCCL runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nccl_roce::testing {

enum class NcclCallSites {
  k230,  // 2.30.7
  k231,  // 2.31.2, and 2.32
};

// What NCCL's symmetric model picks for a batch (the same on every rank: the windows are registered together).
enum class SymmetricKernel {
  kRuns,     // a kernel that needs no check (not LL, or both buffers registered): it runs
  kLLCheck,  // an LL kernel on unregistered windows: NCCL asks for its ordinary choice, and falls back unless LL
  kNone,     // none fits: the batch falls back (2.31 asks for the ordinary choice first)
};

struct EnqueuedCollective {
  int function = 0;  // ncclFunc_t
  size_t bytes = 0;
  int op = 0, datatype = 0;
  int root = 0;            // broadcasts
  bool symmetric = false;  // both buffers in symmetric windows (windows are registered by every rank together)
  SymmetricKernel kernel = SymmetricKernel::kLLCheck;
  uint32_t selection = 0;  // 2.31+: a per-call algorithm selection, as entries (algorithm * 3 + protocol); 0: none
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
  bool offersNothing = false;  // 2.31's symmetric query: every entry of its table is -1
  uint32_t selection = 0;      // the table offers only these entries (a per-call selection); 0: all NCCL offers
};

// What NCCL runs after a call: the entry it picks (-1: none; 2.31 then asks again without the selection).
struct NcclRan {
  int algorithm = -1, protocol = -1;
};

// Makes the calls NCCL makes for `launch` on a rank whose own buffers are registered (`registered`) or not, in
// NCCL's order, each through `ask`.
void driveLaunch(const Launch& launch, bool registered, NcclCallSites sites,
                 const std::function<NcclRan(const TunerCall&)>& ask);

// The calls of a launch whose calls do not depend on the answers (no symmetric LL check), in order.
std::vector<TunerCall> tunerCallsOf(const Launch& launch, bool registered, NcclCallSites sites);

}  // namespace nccl_roce::testing

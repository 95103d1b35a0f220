#include "tests/abi/nccl_call_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace nccl_roce::testing {

namespace {

constexpr int kBroadcast = 1, kAllGather = 2;  // ncclFunc_t
constexpr int kLL = 0;                         // NCCL_PROTO_LL
constexpr int kChannels = 16;                  // the communicator's channels (nTasksPerChannel's divisor)

size_t divUp(size_t a, size_t b) {
  return (a + b - 1) / b;
}

using Key = std::tuple<int, int, int>;  // function, operation, data type

Key keyOf(const EnqueuedCollective& c) {
  return std::make_tuple(c.function, c.op, c.datatype);
}

// The symmetric scheduler (src/scheduler/symmetric_sched.cc): each batch's calls; the batches that fall back are
// appended to `fallback`, to be scheduled as ordinary collectives after the others.
void scheduleSymmetric(const std::vector<EnqueuedCollective>& symmetric, int regBuff, NcclCallSites sites,
                       const std::function<NcclRan(const TunerCall&)>& ask, std::vector<EnqueuedCollective>* fallback) {
  std::vector<Key> order;
  std::map<Key, std::vector<EnqueuedCollective>> batches;  // one batch per (function, op, type): few enough to fit
  for (const EnqueuedCollective& t : symmetric) {
    if (batches.find(keyOf(t)) == batches.end()) order.push_back(keyOf(t));
    batches[keyOf(t)].insert(batches[keyOf(t)].begin(), t);  // NCCL's LIFO
  }
  for (const Key& key : order) {
    const std::vector<EnqueuedCollective>& batch = batches[key];
    const EnqueuedCollective& head = batch.front();
    size_t bytes = 0;
    for (const EnqueuedCollective& t : batch) bytes += t.bytes;
    bool fallsBack = head.kernel == SymmetricKernel::kNone;
    if (sites == NcclCallSites::k231) {
      // ncclTuningCompute with the symmetric kernels' mask: no ordinary candidate, every entry -1.
      ask({head.function, bytes, 0, regBuff, true, 0});
      // Then, for an LL kernel to check or for none at all, the ordinary model, in the same call.
      if (head.kernel != SymmetricKernel::kRuns) {
        NcclRan ran = ask({head.function, bytes, 0, regBuff, false, 0});
        fallsBack = fallsBack || ran.protocol != kLL;
      }
    } else if (head.kernel == SymmetricKernel::kLLCheck) {
      // 2.30: ncclGetAlgoInfo on the batch's first collective, pipeOps 1.
      NcclRan ran = ask({head.function, head.bytes, 1, regBuff, false, 0});
      fallsBack = ran.protocol != kLL;
    }
    if (fallsBack) fallback->insert(fallback->end(), batch.begin(), batch.end());
  }
}

// One ordinary aggregate: with a selection (2.31+), first that selection's table, then, if nothing in it runs, the
// whole table.
void askAggregate(const EnqueuedCollective& head, size_t bytes, int pipeOps, int regBuff, NcclCallSites sites,
                  const std::function<NcclRan(const TunerCall&)>& ask) {
  if (sites == NcclCallSites::k231 && head.selection != 0) {
    NcclRan ran = ask({head.function, bytes, pipeOps, regBuff, false, head.selection});
    if (ran.algorithm >= 0) return;
  }
  ask({head.function, bytes, pipeOps, regBuff, false, 0});
}

}  // namespace

void driveLaunch(const Launch& launch, bool registered, NcclCallSites sites,
                 const std::function<NcclRan(const TunerCall&)>& ask) {
  const int regBuff = launch.capturing || registered ? 1 : 0;
  std::vector<EnqueuedCollective> tasks, broadcasts;
  std::set<int> roots;
  for (const EnqueuedCollective& c : launch.collectives) {
    if (c.function == kBroadcast) {
      broadcasts.push_back(c);
      roots.insert(c.root);
    } else {
      tasks.push_back(c);
    }
  }
  if (roots.size() == 1) tasks.insert(tasks.end(), broadcasts.begin(), broadcasts.end());
  // The sorter: size descending (stable, as NCCL's insertion keeps equal sizes in order).
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const EnqueuedCollective& a, const EnqueuedCollective& b) { return a.bytes > b.bytes; });
  // Symmetric collectives leave the list for their own scheduler, which runs first; those that fall back come
  // after the ordinary ones.
  std::vector<EnqueuedCollective> ordinary, symmetric;
  for (const EnqueuedCollective& t : tasks) (t.symmetric ? symmetric : ordinary).push_back(t);
  if (!symmetric.empty()) scheduleSymmetric(symmetric, regBuff, sites, ask, &ordinary);
  // Bins by (function, op, type), in first-seen order; each bin size ascending (NCCL's LIFO).
  std::vector<Key> order;
  std::map<Key, std::vector<EnqueuedCollective>> bins;
  for (const EnqueuedCollective& t : ordinary) {
    if (bins.find(keyOf(t)) == bins.end()) order.push_back(keyOf(t));
    bins[keyOf(t)].insert(bins[keyOf(t)].begin(), t);
  }
  const int pipeOps = static_cast<int>(divUp(ordinary.size(), kChannels));
  for (const Key& key : order) {
    const std::vector<EnqueuedCollective>& bin = bins[key];
    for (size_t first = 0; first < bin.size();) {
      size_t end = first + 1, bytes = bin[first].bytes;
      while (end < bin.size() && bin[end].bytes < 4 * bin[first].bytes) bytes += bin[end++].bytes;
      askAggregate(bin[first], bytes, pipeOps, regBuff, sites, ask);
      first = end;
    }
  }
  if (roots.size() > 1) {  // the multi-root broadcasts: one all-gather query for the largest of them
    size_t largest = 0;
    for (const EnqueuedCollective& b : broadcasts) largest = std::max(largest, b.bytes);
    ask({kAllGather, largest, 1, 0, false, 0});
  }
}

std::vector<TunerCall> tunerCallsOf(const Launch& launch, bool registered, NcclCallSites sites) {
  std::vector<TunerCall> calls;
  driveLaunch(launch, registered, sites, [&calls](const TunerCall& c) {
    calls.push_back(c);
    return NcclRan{1, kLL};  // an answer: Ring/LL
  });
  return calls;
}

}  // namespace nccl_roce::testing

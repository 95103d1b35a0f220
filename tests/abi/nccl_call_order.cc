#include "tests/abi/nccl_call_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace nccl_roce::testing {

namespace {

constexpr int kBroadcast = 1, kAllGather = 2;  // ncclFunc_t
constexpr int kChannels = 16;                  // the communicator's channels (nTasksPerChannel's divisor)

size_t divUp(size_t a, size_t b) {
  return (a + b - 1) / b;
}

// The multi-root broadcasts: one all-gather query for the largest of them.
void broadcastBatch(const std::vector<EnqueuedCollective>& broadcasts, std::vector<TunerCall>* calls) {
  size_t largest = 0;
  for (const EnqueuedCollective& b : broadcasts) largest = std::max(largest, b.bytes);
  calls->push_back({kAllGather, largest, 1, 0, false});
}

}  // namespace

std::vector<TunerCall> tunerCallsOf(const Launch& launch, bool registered) {
  const int regBuff = launch.capturing || registered ? 1 : 0;
  std::vector<TunerCall> calls;
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
  // Symmetric collectives leave the list for their own scheduler, which runs after the ordinary ones.
  std::vector<EnqueuedCollective> ordinary, symmetric;
  for (const EnqueuedCollective& t : tasks) (t.symmetric ? symmetric : ordinary).push_back(t);
  // Bins by (function, op, type), in first-seen order; each bin size ascending (NCCL's LIFO).
  std::vector<std::tuple<int, int, int>> order;
  std::map<std::tuple<int, int, int>, std::vector<EnqueuedCollective>> bins;
  for (const EnqueuedCollective& t : ordinary) {
    auto key = std::make_tuple(t.function, t.op, t.datatype);
    if (bins.find(key) == bins.end()) order.push_back(key);
    bins[key].insert(bins[key].begin(), t);
  }
  const int pipeOps = static_cast<int>(divUp(ordinary.size(), kChannels));
  for (const auto& key : order) {
    const std::vector<EnqueuedCollective>& bin = bins[key];
    for (size_t first = 0; first < bin.size();) {
      size_t end = first + 1, bytes = bin[first].bytes;
      while (end < bin.size() && bin[end].bytes < 4 * bin[first].bytes) bytes += bin[end++].bytes;
      calls.push_back({bin[first].function, bytes, pipeOps, regBuff, false});
      first = end;
    }
  }
  if (roots.size() > 1) broadcastBatch(broadcasts, &calls);
  // Per symmetric collective: the query that offers nothing, then the LL fallback's ordinary call.
  for (const EnqueuedCollective& t : symmetric) {
    calls.push_back({t.function, t.bytes, 0, regBuff, true});
    calls.push_back({t.function, t.bytes, 1, regBuff, false});
  }
  return calls;
}

}  // namespace nccl_roce::testing

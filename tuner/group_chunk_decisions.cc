#include "tuner/group_chunk_decisions.h"

namespace nccl_roce::tuner {

void GroupChunkDecisions::decided(int collective, int algorithm, int protocol, const telemetry::ChunkSize& chunk) {
  if (closed_) {
    count_ = 0;
    overflowed_ = false;
    closed_ = false;
  }
  if (count_ == kCapacity) {
    overflowed_ = true;
    return;
  }
  entries_[count_++] = {collective, algorithm, protocol, chunk};
}

GroupChunkDecisions::Found GroupChunkDecisions::find(int collective, int algorithm, int protocol) {
  closed_ = true;
  Found found;
  if (overflowed_) {
    found.ambiguous = true;
    return found;
  }
  bool seen = false;
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (e.collective != collective || e.algorithm != algorithm || e.protocol != protocol) continue;
    if (seen && e.chunk != found.chunk) return {telemetry::ChunkSize::nccl(), true};
    found.chunk = e.chunk;
    seen = true;
  }
  return found;
}

}  // namespace nccl_roce::tuner

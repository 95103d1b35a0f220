// How getChunkSize finds the decision getCollInfo made. NCCL asks getCollInfo about every collective of a group
// (ncclPrepareTasks, src/enqueue.cc) before it asks getChunkSize about any of them (scheduleCollTasksToPlan,
// from calcCollChunking), and getChunkSize is told the collective, the algorithm and protocol NCCL runs, but not
// the collective's size: outside CollNet it gets one channel's piece with nChannels 1, up to three times per
// collective. So one communicator keeps the decisions of its current group, and a piece gets the chunk size its
// (collective, algorithm, protocol) was decided with. Every rank sees the same calls in the same order, so every
// rank serves the same value.
//
// When the group decided one (collective, algorithm, protocol) two ways (two all-reduces more than 4x apart in
// size, ruled differently, on the same algorithm and protocol), a piece cannot be told apart: NCCL's own chunk
// size for both, counted. The same when a group holds more decisions than are kept.
#pragma once

#include <array>
#include <cstddef>

#include "telemetry/chunk_size.h"

namespace nccl_roce::tuner {

class GroupChunkDecisions {
 public:
  // Beyond any group vLLM issues (one collective per call, or a handful of (collective, op, type) bins).
  static constexpr size_t kCapacity = 16;

  // From getCollInfo: what NCCL will run for one collective (or aggregate of them), and its chunk size. The first
  // decision after a getChunkSize starts a new group.
  void decided(int collective, int algorithm, int protocol, const telemetry::ChunkSize& chunk);

  struct Found {
    telemetry::ChunkSize chunk;  // NCCL's own unless the group decided this call one way
    bool ambiguous = false;      // decided two ways, or the group was too large to keep: NCCL's own
  };
  // From getChunkSize: closes the group (the next decision starts a new one).
  Found find(int collective, int algorithm, int protocol);

 private:
  struct Entry {
    int collective = 0, algorithm = 0, protocol = 0;
    telemetry::ChunkSize chunk;
  };
  std::array<Entry, kCapacity> entries_{};
  size_t count_ = 0;
  bool overflowed_ = false;
  bool closed_ = false;
};

}  // namespace nccl_roce::tuner

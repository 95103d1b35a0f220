// What chunk sizes NCCL can use, as its source computes them in every release with getChunkSize (2.30.2 -
// 2.30.7, tuner v6, and the 2.31 dev line; docs/nccl-versions.md, "Chunk size", cites each line). NCCL calls
// getChunkSize in calcCollChunking (src/enqueue.cc) with the chunk size it computed, clamps what comes back to
// the protocol's buffer ceiling, then rounds it down to a multiple of the protocol's grain: a value below one
// grain becomes 0, and NVLS's buffers are smaller than that ceiling. So the tuner itself keeps every value it
// serves within what is checked here, and otherwise leaves NCCL's own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "telemetry/chunk_size.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

// ncclProtoGrainSize (src/include/device.h): LL 16, LL128 1920 (32 threads x 8 elements / 16 per line x 15 data
// elements x 8 bytes), Simple 512 bytes. 0 for anything else.
uint64_t chunkGrain(int protocol);

// The buffers NCCL derives its ceilings from. Per protocol, comm->buffSizes (computeBuffSizes, src/init.cc):
// NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE, or the defaults 512 KiB (8 lines x 512 threads x 8
// steps x 16 bytes), 4,915,200 bytes (120 x 640 threads x 8 steps x 8 bytes) and 4 MiB. NVLS buffers are made of
// steps of the NVLS chunk size (src/transport/nvls.cc): NCCL_NVLS_CHUNKSIZE, else 128 KiB (256 KiB on some
// multi-node Blackwell systems, which this bound does not assume).
struct NcclBuffers {
  int64_t protocolBytes[telemetry::kNumProtocols] = {524288, 4915200, 4194304};
  int64_t nvlsChunk = 131072;

  // NCCL's variable names for the four values, in the order above.
  static const char* const kVariables[telemetry::kNumProtocols + 1];
  // The defaults, with each variable `valueOf` returns read as NCCL reads it (strtoll, base 0, a prefix: "4M"
  // is 4; a value strtoll refuses keeps the default).
  static NcclBuffers from(const std::function<std::optional<std::string>(const char*)>& valueOf);
};

// The largest chunk size NCCL can use for this call: its buffer ceiling (bufferMaxChunkSize: one step of the
// protocol's buffer, 8 steps in all; LL carries 8 data bytes per 16-byte line; LL128 15 data lines of 16; Ring
// with Simple moves chunkSteps steps at once, 4 for all-reduce, all-gather and reduce-scatter, 1 for broadcast
// and reduce), and for NVLS and NVLSTree no more than one NVLS step. 0 for an unknown combination.
uint64_t maxChunkSize(const NcclBuffers& buffers, int collective, int algorithm, int protocol);

enum class ChunkCheck {
  kUsable,
  kBelowGrain,   // NCCL would round it down to 0
  kNotMultiple,  // NCCL would round it down: not what was written
  kAboveMax,     // past the buffer: NCCL clamps it, or for NVLS overruns its step
};
ChunkCheck checkChunkBytes(uint64_t bytes, const NcclBuffers& buffers, int collective, int algorithm, int protocol);

// maxChunkSize of every (collective, algorithm, protocol) for one set of buffers, computed once per communicator:
// what getChunkSize checks on every call.
class ChunkCeilings {
 public:
  ChunkCeilings() = default;  // every ceiling 0: nothing is usable
  explicit ChunkCeilings(const NcclBuffers& buffers);
  uint64_t of(int collective, int algorithm, int protocol) const {
    bool known = collective >= 0 && collective < telemetry::kNumCollectives && algorithm >= 0 &&
                 algorithm < telemetry::kMaxAlgorithms && protocol >= 0 && protocol < telemetry::kNumProtocols;
    return known ? ceilings_[collective][algorithm][protocol] : 0;
  }

 private:
  uint64_t ceilings_[telemetry::kNumCollectives][telemetry::kMaxAlgorithms][telemetry::kNumProtocols] = {};
};

// What getChunkSize returns for one call: `wanted` resolved against NCCL's own value (a factor is applied and
// rounded down to the grain), if NCCL can use it; NCCL's own value untouched otherwise (*refused then says so).
uint64_t chunkSizeToServe(const telemetry::ChunkSize& wanted, uint64_t ncclChunkSize, const ChunkCeilings& ceilings,
                          int collective, int algorithm, int protocol, bool* refused);

}  // namespace nccl_roce::policy

#include "policy/nccl_chunk_limits.h"

#include <cerrno>
#include <cstdlib>

namespace nccl_roce::policy {

namespace {

constexpr int64_t kNcclSteps = 8;  // NCCL_STEPS (src/include/device.h)

// chunkSteps of Ring with Simple (src/include/collectives.h: *_CHUNKSTEPS, NCCL_STEPS/2 or 1).
int64_t ringChunkSteps(int collective) {
  switch (collective) {
    case telemetry::kCollAllReduce:
    case telemetry::kCollAllGather:
    case telemetry::kCollReduceScatter:
      return kNcclSteps / 2;
    default:
      return 1;
  }
}

}  // namespace

const char* const NcclBuffers::kVariables[telemetry::kNumProtocols + 1] = {"NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE",
                                                                           "NCCL_BUFFSIZE", "NCCL_NVLS_CHUNKSIZE"};

NcclBuffers NcclBuffers::from(const std::function<std::optional<std::string>(const char*)>& valueOf) {
  NcclBuffers out;
  int64_t* targets[telemetry::kNumProtocols + 1] = {&out.protocolBytes[0], &out.protocolBytes[1], &out.protocolBytes[2],
                                                    &out.nvlsChunk};
  for (int i = 0; i <= telemetry::kNumProtocols; ++i) {
    std::optional<std::string> text = valueOf(kVariables[i]);
    if (!text || text->empty()) continue;
    // ncclLoadParam (src/misc/param.cc): strtoll(str, nullptr, 0), the default only when errno is set.
    errno = 0;
    long long value = std::strtoll(text->c_str(), nullptr, 0);
    if (errno == 0) *targets[i] = value;
  }
  return out;
}

uint64_t chunkGrain(int protocol) {
  switch (protocol) {
    case telemetry::kProtoLL:
      return 16;
    case telemetry::kProtoLL128:
      return 1920;
    case telemetry::kProtoSimple:
      return 512;
    default:
      return 0;
  }
}

uint64_t maxChunkSize(const NcclBuffers& buffers, int collective, int algorithm, int protocol) {
  if (collective < 0 || collective >= telemetry::kNumCollectives || algorithm < 0 ||
      algorithm >= telemetry::kMaxAlgorithms || protocol < 0 || protocol >= telemetry::kNumProtocols) {
    return 0;
  }
  const int64_t step = buffers.protocolBytes[protocol] / kNcclSteps;
  int64_t ceiling = step;
  if (protocol == telemetry::kProtoLL) ceiling = step / 2;
  if (protocol == telemetry::kProtoLL128) ceiling = step / 16 * 15;
  if (protocol == telemetry::kProtoSimple && algorithm == telemetry::kAlgoRing)
    ceiling = step * ringChunkSteps(collective);
  if ((algorithm == telemetry::kAlgoNvls || algorithm == telemetry::kAlgoNvlsTree) && buffers.nvlsChunk < ceiling) {
    ceiling = buffers.nvlsChunk;
  }
  return ceiling > 0 ? static_cast<uint64_t>(ceiling) : 0;
}

ChunkCheck checkChunkBytes(uint64_t bytes, const NcclBuffers& buffers, int collective, int algorithm, int protocol) {
  const uint64_t grain = chunkGrain(protocol);
  if (grain == 0 || bytes < grain) return ChunkCheck::kBelowGrain;
  if (bytes % grain != 0) return ChunkCheck::kNotMultiple;
  if (bytes > maxChunkSize(buffers, collective, algorithm, protocol)) return ChunkCheck::kAboveMax;
  return ChunkCheck::kUsable;
}

ChunkCeilings::ChunkCeilings(const NcclBuffers& buffers) {
  for (int c = 0; c < telemetry::kNumCollectives; ++c) {
    for (int a = 0; a < telemetry::kMaxAlgorithms; ++a) {
      for (int p = 0; p < telemetry::kNumProtocols; ++p) {
        ceilings_[c][a][p] = maxChunkSize(buffers, c, a, p);
      }
    }
  }
}

uint64_t chunkSizeToServe(const telemetry::ChunkSize& wanted, uint64_t ncclChunkSize, const ChunkCeilings& ceilings,
                          int collective, int algorithm, int protocol, bool* refused) {
  *refused = false;
  const uint64_t grain = chunkGrain(protocol);
  uint64_t bytes = 0;
  switch (wanted.kind) {
    case telemetry::ChunkSize::Kind::kNccl:
      return ncclChunkSize;
    case telemetry::ChunkSize::Kind::kBytes:
      bytes = wanted.bytes;
      break;
    case telemetry::ChunkSize::Kind::kScaled: {
      // NCCL's own value need not be a multiple of the grain (Tree/LL128 halves 576000 to 36000): rounded down
      // here as NCCL would, so that the check below sees what NCCL would run.
      bytes = wanted.scaleLog2 > 0 ? ncclChunkSize << wanted.scaleLog2 : ncclChunkSize >> -wanted.scaleLog2;
      if (grain != 0) bytes -= bytes % grain;
      break;
    }
  }
  // checkChunkBytes, against the ceiling looked up rather than computed: this runs on every getChunkSize.
  if (grain == 0 || bytes < grain || bytes % grain != 0 || bytes > ceilings.of(collective, algorithm, protocol)) {
    *refused = true;
    return ncclChunkSize;
  }
  return bytes;
}

}  // namespace nccl_roce::policy

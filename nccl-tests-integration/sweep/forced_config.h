// Which forced configuration a run measured, read from the variables it ran with (the runner's
// "# nccl-roce-env:" lines or NCCL's "set by environment" lines): NCCL_ALGO, NCCL_PROTO,
// NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS, and NCCL_ROCE_CHUNK_SIZE under our tuner (NCCL has no variable for a
// collective's chunk size). A run with none of them measured NCCL's default.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "nccl-tests-integration/sweep/perf_log.h"
#include "policy/policy.h"
#include "telemetry/chunk_size.h"

namespace nccl_roce::sweep {

struct ForcedConfig {
  int algorithm = -1;  // tuner ABI index (telemetry/nccl_names.h); -1: not forced
  int protocol = -1;
  int channels = 0;            // 0: not forced
  telemetry::ChunkSize chunk;  // NCCL's own: not forced

  bool isDefault() const { return algorithm < 0 && protocol < 0 && channels == 0 && chunk.isNccl(); }
  // "NCCL default", "Tree/LL", "Ring/any/16 channels", "any/Simple/chunk 256K"
  std::string describe() const;
  // A fitted rule's chunk_size for `collective`: the forced value for the protocols NCCL can use it with (with
  // its default buffers) among those the configuration runs; NCCL_ROCE_CHUNK_SIZE left NCCL's own elsewhere.
  policy::ChunkSizes chunkSizes(int collective) const;
  bool operator<(const ForcedConfig& o) const {
    return std::tie(algorithm, protocol, channels, chunk) < std::tie(o.algorithm, o.protocol, o.channels, o.chunk);
  }
  bool operator==(const ForcedConfig& o) const {
    return std::tie(algorithm, protocol, channels, chunk) == std::tie(o.algorithm, o.protocol, o.channels, o.chunk);
  }
  bool operator!=(const ForcedConfig& o) const { return !(*this == o); }
};

// nullopt, with the reason in *why, when the run's settings cannot be one policy rule: a run under a tuner
// policy other than "nccl", NCCL_ALGO lists ("Ring,Tree", "^NVLS", "allreduce:tree"), unknown names,
// different minimum and maximum channel counts, or a chunk size that did not apply (no tuner of ours, an NCCL
// before 2.30.2, a size NCCL can use for none of the run's calls).
std::optional<ForcedConfig> forcedConfigOf(const PerfRun& run, std::string* why);

}  // namespace nccl_roce::sweep

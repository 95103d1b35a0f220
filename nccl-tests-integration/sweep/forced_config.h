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
#include "telemetry/choice.h"

namespace nccl_roce::sweep {

struct ForcedConfig {
  telemetry::Choice choice;  // what the run forced; a lever left to NCCL was not forced

  bool isDefault() const { return choice.isNccl(); }
  // "NCCL default", "Tree/LL", "Ring/any/16 channels", "any/Simple/chunk 256K"
  std::string describe() const;
  // A fitted rule's chunk_size for `collective`: the forced value for the protocols NCCL can use it with (with
  // its default buffers) among those the configuration runs; NCCL_ROCE_CHUNK_SIZE left NCCL's own elsewhere.
  policy::ChunkSizes chunkSizes(int collective) const;
  // Configurations that differ only in chunk size list bytes before factors ("256K" before "x2"), as reports show.
  bool operator<(const ForcedConfig& o) const {
    return std::make_tuple(choice.algorithm, choice.protocol, choice.channels, choice.chunk()) <
           std::make_tuple(o.choice.algorithm, o.choice.protocol, o.choice.channels, o.choice.chunk());
  }
  bool operator==(const ForcedConfig& o) const { return choice == o.choice; }
  bool operator!=(const ForcedConfig& o) const { return !(*this == o); }
};

// nullopt, with the reason in *why, when the run's settings cannot be one policy rule: a run under a tuner
// policy other than "nccl", NCCL_ALGO lists ("Ring,Tree", "^NVLS", "allreduce:tree"), unknown names,
// different minimum and maximum channel counts, or a chunk size that did not apply (no tuner of ours, an NCCL
// before 2.30.2, a size NCCL can use for none of the run's calls).
std::optional<ForcedConfig> forcedConfigOf(const PerfRun& run, std::string* why);

}  // namespace nccl_roce::sweep

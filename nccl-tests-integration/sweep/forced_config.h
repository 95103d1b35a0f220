// Which forced configuration a run measured, read from the variables it ran with (the runner's
// "# nccl-roce-env:" lines or NCCL's "set by environment" lines): NCCL_ALGO, NCCL_PROTO and
// NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS. A run with none of them measured NCCL's default.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "nccl-tests-integration/sweep/perf_log.h"

namespace nccl_roce::sweep {

struct ForcedConfig {
  int algorithm = -1;  // tuner ABI index (tuner/nccl_names.h); -1: not forced
  int protocol = -1;
  int channels = 0;    // 0: not forced

  bool isDefault() const { return algorithm < 0 && protocol < 0 && channels == 0; }
  // "NCCL default", "Tree/LL", "Ring/any/16 channels"
  std::string describe() const;
  bool operator<(const ForcedConfig& o) const {
    return std::tie(algorithm, protocol, channels) < std::tie(o.algorithm, o.protocol, o.channels);
  }
  bool operator==(const ForcedConfig& o) const {
    return std::tie(algorithm, protocol, channels) == std::tie(o.algorithm, o.protocol, o.channels);
  }
  bool operator!=(const ForcedConfig& o) const { return !(*this == o); }
};

// nullopt, with the reason in *why, when the run's settings cannot be one policy rule: a run under a tuner
// policy other than "nccl", NCCL_ALGO lists ("Ring,Tree", "^NVLS", "allreduce:tree"), unknown names, or
// different minimum and maximum channel counts.
std::optional<ForcedConfig> forcedConfigOf(const PerfRun& run, std::string* why);

}  // namespace nccl_roce::sweep

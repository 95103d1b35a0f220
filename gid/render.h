// Turns a Selection into the variables NCCL, NVSHMEM and UCX read, each in its consumer's own format:
//   NCCL_IB_HCA       "=mlx5_0:1,mlx5_1:1"  (exact match; a bare mlx5_1 would also match mlx5_10..19)
//   NVSHMEM_HCA_LIST  "mlx5_0:1,mlx5_1:1"   (exact names, port optional)
//   UCX_NET_DEVICES   "mlx5_0:1,mlx5_1:1"   (bare names need UCX >= 1.21, so ports are always given)
// A GID index is a single number for every device in all three; it is emitted only when every selected
// RoCE port resolved the same index. Otherwise NCCL's (and NVSHMEM's) per-device choice is steered with
// the address family and range instead, and the warnings say so.
#pragma once

#include <string>
#include <vector>

#include "common/env.h"
#include "gid/machine.h"
#include "gid/selection.h"

namespace nccl_roce::gid {

struct EnvSetting {
  std::string name;
  std::string value;
  // True when the user had already set this variable: `value` is the user's, reported and never overridden.
  bool keptFromUser = false;
  std::string note;  // why this value (or, when kept, what we would have set)
};

// Every variable this resolver can set, in output order.
const std::vector<std::string>& resolvedVariableNames();

std::vector<EnvSetting> renderSettings(const Selection& selection, const Machine& machine, const Environment& user,
                                       std::vector<std::string>& warnings);

}  // namespace nccl_roce::gid

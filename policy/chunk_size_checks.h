// Which calls a rule's chunk size is for, and whether NCCL can use it for them (policy/nccl_chunk_limits.h): what
// lint, `policy explain` and the fitters (`sweep fit`) share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/nccl_chunk_limits.h"
#include "policy/policy.h"

namespace nccl_roce::policy {

// The (collective, algorithm) pairs with which `rule` can have NCCL run `protocol`: those of its preferences (a
// wildcard counts every algorithm NCCL offers), or every pair NCCL offers when it keeps NCCL's choice.
struct CallKind {
  int collective = 0;
  int algorithm = 0;
};
std::vector<CallKind> callKindsOf(const Rule& rule, int protocol);

// Why NCCL cannot use `bytes` with `protocol` for any of `kinds` ("below LL's grain of 16 bytes: ..."); empty
// when it can for at least one (the others keep NCCL's own at run time).
std::string chunkProblem(uint64_t bytes, int protocol, const std::vector<CallKind>& kinds, const NcclBuffers& buffers);

// The buffers a policy's [env] gives NCCL (NCCL_BUFFSIZE and the others it names), over NCCL's defaults.
NcclBuffers buffersOf(const Policy& policy);

}  // namespace nccl_roce::policy

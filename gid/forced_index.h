// A GID index the user forces (NCCL_IB_GID_INDEX, NVSHMEM_IB_GID_INDEX, UCX_IB_GID_INDEX) always wins, but a
// wrong one is the classic RoCE failure ("ibv_modify_qp failed with error Invalid argument", or traffic to
// another pod's address): say, per selected port, what the forced index really holds there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/env.h"
#include "gid/machine.h"
#include "gid/selection.h"

namespace nccl_roce::gid {

struct ForcedIndex {
  std::string variable;     // e.g. "NCCL_IB_GID_INDEX"
  std::string text;         // as the user set it
  int index = 0;            // what the consumer reads it as; -1 when it is no index at all (see readingNote)
  std::string readingNote;  // non-empty when the consumer reads the text differently from how it looks
};

// The indices the user forces, read the way each consumer reads them. NCCL: strtoll(text, 0, 0), so "auto"
// is 0 and "010" is 8; empty or negative means automatic. UCX: "auto" or a number. NVSHMEM: a decimal number.
std::vector<ForcedIndex> forcedIndicesOf(const Environment& user);

// One warning per selected RoCE port whose forced entry is not a GID this pod can use, plus one per odd reading.
std::vector<std::string> checkForcedIndices(const std::vector<ForcedIndex>& forced, const Selection& selection,
                                            const Machine& machine);

}  // namespace nccl_roce::gid

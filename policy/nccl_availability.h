// What NCCL can ever run, on any machine and with any settings: the algorithm/protocol/collective combinations
// its tuning model (ncclTopoTuneModel) gives a cost at all. Everything else stays at -1 in the cost table on
// every machine, so an exploration arm forcing it could only ever fall back: [experiment.explore] rejects it.
// What a given machine or setting disables (NVLS without NVLink SHARP, CollNet without a CollNet plugin, PAT with
// more than one GPU per node, LL128 on some topologies, NCCL_ALGO/NCCL_PROTO) is not here: it shows up as -1 in
// the table at run time, and the rule falls back to NCCL's choice there.
#pragma once

#include <cstdint>
#include <string>

#include "policy/policy.h"

namespace nccl_roce::policy {

// Bit c set: NCCL can run `algorithm` for collective c (ncclFunc_t). 0 for an unknown algorithm.
uint32_t collectivesOffered(int algorithm);
// Whether NCCL can run `algorithm` with `protocol` (for any collective it runs the algorithm for).
bool protocolOffered(int algorithm, int protocol);
// The node counts at which NCCL can run `algorithm`.
ValueRange nodesOffered(int algorithm);

// "AllReduce, AllGather" for a collective bit mask, as NCCL spells them, all-reduce first.
std::string collectiveList(uint32_t collectives);
// "Simple" or "LL, LL128, Simple": the protocols NCCL can run `algorithm` with.
std::string protocolsOfferedList(int algorithm);

}  // namespace nccl_roce::policy

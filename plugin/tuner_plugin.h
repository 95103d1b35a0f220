// The tuner plugin, implemented once against the newest ABI a release declares (v7, NCCL 2.32.6);
// plugin/exports_tuner.cc adapts v2..v6 to it. Contract with NCCL (docs/tuner.md): init never fails a communicator (a
// broken policy becomes the `nccl` passthrough with one WARN), getCollInfo never returns an error and never marks an
// unavailable entry, decisions depend only on what every rank shares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/nccl/tuner_v7.h"
#include "tuner/decide.h"

namespace nccl_roce::plugin {

class ProcessContext;

// One communicator's tuner, over the policies and statistics of `process` (tests pass their own context).
// The tuner reads NCCL_ROCE_POLICY, NCCL_ROCE_STATS, NCCL_ROCE_CHUNK_SIZE, NCCL_ALGO and NCCL_PROTO from the
// context's environment. ncclAsksChunkSize: the table NCCL loaded has getChunkSize (v6, v7); where it has not,
// chunk sizes are ignored and the first communicator of a policy that sets them says so at INFO. selection: how the
// NCCL calling picks from its cost table, which tells what it runs where it chooses (statistics, chunk sizes).
ncclResult_t tunerInit(ProcessContext& process, void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, bool ncclAsksChunkSize = true,
                       tuner::SelectionRule selection = tuner::SelectionRule::kLastPlainMinimum) noexcept;
// The same over this process's context (processContext()): what the exported tables call.
ncclResult_t tunerInit(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                       bool ncclAsksChunkSize,
                       tuner::SelectionRule selection = tuner::SelectionRule::kLastPlainMinimum) noexcept;

ncclResult_t tunerGetCollInfo(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels) noexcept;

// NCCL 2.21 (v2) has no cost table: only fully named Ring/Tree x LL/Simple preferences can be known to be
// available there, so only those are returned; anything else, or NCCL_ALGO/NCCL_PROTO set, leaves NCCL's choice.
ncclResult_t tunerGetCollInfoWithoutTable(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                          int* algorithm, int* protocol, int* nChannels) noexcept;

// NCCL 2.30.2 and later (v6, v7), after getCollInfo and NCCL's choice, once per channel piece of each collective, with
// the chunk size NCCL computed in *chunkSize: replaced by the chunk size the deciding rule set for the algorithm and
// protocol NCCL runs, when NCCL can use it (policy/nccl_chunk_limits.h); left as it is otherwise. Never fails.
ncclResult_t tunerGetChunkSize(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize) noexcept;

ncclResult_t tunerFinalize(void* context) noexcept;

// The plugin's name in NCCL's logs ("TUNER/Plugin: Using nccl-roce (v7)").
inline constexpr const char* kTunerName = "nccl-roce";

}  // namespace nccl_roce::plugin

// ncclTuner_v6_t: NCCL 2.30.2. Adds an optional getChunkSize as the last member (NULL keeps NCCL's chunk size).
#pragma once

#include "plugin/nccl/tuner_v5.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef ncclTunerConstants_v5_t ncclTunerConstants_v6_t;
typedef ncclNvlDomainInfo_v5_t ncclNvlDomainInfo_v6_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                       ncclNvlDomainInfo_v6_t* nvlDomainInfo, ncclTunerConstants_v6_t* constants);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels);
  ncclResult_t (*finalize)(void* context);
  ncclResult_t (*getChunkSize)(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize);
} ncclTuner_v6_t;

#ifdef __cplusplus
}

static_assert(sizeof(ncclTuner_v6_t) == 5 * sizeof(void*), "v5 plus getChunkSize at the end");
#endif

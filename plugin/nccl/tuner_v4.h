// ncclTuner_v4_t: NCCL 2.24. Adds regBuff to getCollInfo.
#pragma once

#include "plugin/nccl/tuner_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v4_t;

#ifdef __cplusplus
}
#endif

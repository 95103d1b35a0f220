// ncclTuner_v3_t: NCCL 2.22. The cost table (contiguous float[numAlgo][numProto], passed as float**) replaces
// the algorithm/protocol outputs.
#pragma once

#include "plugin/nccl/tuner_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v3_t;

#ifdef __cplusplus
}
#endif

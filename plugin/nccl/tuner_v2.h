// ncclTuner_v2_t: NCCL 2.21. No cost table: the tuner returns an algorithm and protocol directly.
#pragma once

#include "plugin/nccl/tuner_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int collNetSupport, int nvlsSupport,
                              int numPipeOps, int* algorithm, int* protocol, int* nChannels);
  ncclResult_t (*destroy)(void* context);
} ncclTuner_v2_t;

#ifdef __cplusplus
}
#endif

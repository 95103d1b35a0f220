// UNRELEASED. ncclTuner_v7_t as a copy of NCCL's 2.31 line had it: no NCCL release tag (through v2.30.7-1) and not
// the dev branch (2.31.0a7) declares a tuner v7. Used only by builds with NCCL_ROCE_UNRELEASED_ABI, which are never
// packaged (docs/nccl-versions.md); when a release tags v7, check every line against it first.
// The same entry points as v6; the tuning constants gain a fifth compute capability row (NCCL_NUM_COMPCAPS 5),
// which moves every table after hwLatencies.
#pragma once

#include "plugin/nccl/tuner_v6.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef ncclNvlDomainInfo_v5_t ncclNvlDomainInfo_v7_t;

#define NCCL_NUM_COMPCAPS_V7 5

typedef struct {
  double baseLatencies[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  double hwLatencies[NCCL_NUM_HW_LINKS_V5][NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  double llMaxBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxRingLL128Bws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeLL128Bws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxNVLSTreeBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];
} ncclTunerConstants_v7_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                       ncclNvlDomainInfo_v7_t* nvlDomainInfo, ncclTunerConstants_v7_t* constants);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels);
  ncclResult_t (*finalize)(void* context);
  ncclResult_t (*getChunkSize)(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize);
} ncclTuner_v7_t;

#ifdef __cplusplus
}

#include <stddef.h>
static_assert(sizeof(ncclTunerConstants_v7_t) == 1272, "the 2.31 line's ncclTunerConstants_v7_t: 159 doubles");
static_assert(offsetof(ncclTunerConstants_v7_t, perChMaxNVLSTreeBws) == 1152, "five compcap rows before the last");
static_assert(sizeof(ncclTuner_v7_t) == 5 * sizeof(void*), "name + four entry points");
#endif

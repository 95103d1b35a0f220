// ncclTuner_v7_t: NCCL 2.32.6 ("Tuner plugin interface v7 adds Rubin platform support"). v6's five members with the
// same signatures; the tuning constants gain a fifth compute-capability row (Rubin, index 4 after Volta, Ampere,
// Hopper, Blackwell), which moves every table after hwLatencies. NCCL 2.32.6 looks for ncclTunerPlugin_v7 first;
// a v5/v6 plugin is passed rows 0-3 only (NCCL's tuner_v6.cc copies the v5 sizes in and out). Checked against the
// one tuner_v7.h NVIDIA/nccl's index holds (commit 2449986f, with tuner.cc probing v7 first and nccl_tuner.h making
// v7 NCCL's own); 2.32.3's tuner.cc (12df1a11) still starts at v6 (docs/nccl-versions.md, "Tuner v7").
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
// NCCL 2.32.6's layout (x86-64); the rest in tests/abi/layout_test.cc.
static_assert(sizeof(ncclNvlDomainInfo_v7_t) == 12, "three ints");
static_assert(sizeof(ncclTunerConstants_v7_t) == 1272, "159 doubles: 21 + 63 + five tables of 5 x 3");
static_assert(offsetof(ncclTunerConstants_v7_t, llMaxBws) == 672, "after 21 + 63 doubles");
static_assert(offsetof(ncclTunerConstants_v7_t, perChMaxNVLSTreeBws) == 1152, "five compcap rows per table");
static_assert(sizeof(ncclTuner_v7_t) == 5 * sizeof(void*), "name + four entry points, as v6");
#endif

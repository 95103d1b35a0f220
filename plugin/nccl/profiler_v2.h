// ncclProfiler_v2_t: NCCL 2.24-2.25. Collective, algorithm, protocol and data type become strings; still no kernel
// events.
#pragma once

#include <stddef.h>

#include "plugin/nccl/profiler_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint8_t type;
  void* parentObj;  // for a collective: its group (kernel plan)
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char* func;  // "AllReduce"
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char* algo;   // "RING"
      const char* proto;  // "LL"
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
    } p2p;
    struct {
      ncclPid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
  };
} ncclProfilerEventDescr_v2_t;

typedef ncclProfilerEventStateArgs_v1_t ncclProfilerEventStateArgs_v2_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v2_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v2_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v2_t;

#ifdef __cplusplus
}

static_assert(sizeof(ncclProfilerEventDescr_v2_t) == 128, "NCCL's v2 descriptor is 128 bytes");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.func) == 48, "v2 coll.func");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.count) == 72, "v2 coll.count");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.datatype) == 88, "v2 coll.datatype");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.nMaxChannels) == 104, "v2 coll.nMaxChannels");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.algo) == 112, "v2 coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.proto) == 120, "v2 coll.proto");
#endif

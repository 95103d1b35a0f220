// ncclProfiler_v3_t: NCCL 2.26. Adds KernelCh events (one per channel of a collective's kernel, started and
// stopped by the proxy thread when it sees the channel's work start and finish) without GPU time stamps, and
// network plugin events; trafficBytes is gone.
#pragma once

#include <stddef.h>

#include "plugin/nccl/profiler_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint8_t type;
  void* parentObj;  // collective: its group; KernelCh: its collective
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
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
    struct {
      uint8_t channelId;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v3_t;

typedef ncclProfilerEventStateArgs_v1_t ncclProfilerEventStateArgs_v3_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v3_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v3_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v3_t;

#ifdef __cplusplus
}

static_assert(sizeof(ncclProfilerEventDescr_v3_t) == 120, "NCCL's v3 descriptor is 120 bytes");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.func) == 48, "v3 coll.func");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.count) == 72, "v3 coll.count");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.nMaxChannels) == 96, "v3 coll.nMaxChannels");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.algo) == 104, "v3 coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.proto) == 112, "v3 coll.proto");
static_assert(offsetof(ncclProfilerEventDescr_v3_t, kernelCh.channelId) == 24, "v3 kernelCh.channelId");
#endif

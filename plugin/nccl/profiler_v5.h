// ncclProfiler_v5_t: NCCL 2.28. init gets the communicator id first (the same commId the tuner's init gets); the
// event type widens to 64 bits; API-level events (GroupApi, CollApi, P2pApi, KernelLaunch) appear, and a
// collective's group moves to coll.parentGroup.
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plugin/nccl/profiler_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;  // captured into a CUDA graph: this event fires at capture only; Coll at every replay
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;  // the group (kernel plan); parentObj is the CollApi event
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
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
      uint64_t pTimer;  // GPU start stamp, ns
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v5_t;

typedef union {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;  // GPU stop stamp, ns (KernelChStop)
  } kernelCh;
} ncclProfilerEventStateArgs_v5_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v5_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v5_t;

#ifdef __cplusplus
}

// Offsets measured from NCCL's own header (x86-64).
static_assert(sizeof(ncclProfilerEventDescr_v5_t) == 112, "NCCL layout: sizeof v5_t");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, rank) == 16, "NCCL layout: v5_t.rank");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.func) == 32, "NCCL layout: v5_t.coll.func");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.count) == 56, "NCCL layout: v5_t.coll.count");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.nChannels) == 80, "NCCL layout: v5_t.coll.nChannels");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.algo) == 88, "NCCL layout: v5_t.coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.proto) == 96, "NCCL layout: v5_t.coll.proto");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.parentGroup) == 104, "NCCL layout: v5_t.coll.parentGroup");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, kernelCh.pTimer) == 32, "NCCL layout: v5_t.kernelCh.pTimer");
static_assert(offsetof(ncclProfilerEventDescr_v5_t, collApi.graphCaptured) == 64,
              "NCCL layout: v5_t.collApi.graphCaptured");
static_assert(sizeof(ncclProfilerEventStateArgs_v5_t) == 8, "NCCL layout: sizeof ncclProfilerEventStateArgs_v5_t");
#endif

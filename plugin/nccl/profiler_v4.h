// ncclProfiler_v4_t: NCCL 2.27. init gets the communicator (name, hash, nodes, ranks, rank, logger); KernelCh
// events carry GPU %globaltimer stamps (ns): the start in the descriptor, the stop in the KernelChStop state's
// arguments; the collective loses name and commHash and reports nChannels.
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
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
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
} ncclProfilerEventDescr_v4_t;

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
} ncclProfilerEventStateArgs_v4_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v4_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v4_t;

#ifdef __cplusplus
}

static_assert(sizeof(ncclProfilerEventDescr_v4_t) == 104, "NCCL's v4 descriptor is 104 bytes");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.func) == 32, "v4 coll.func");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.count) == 56, "v4 coll.count");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.nChannels) == 80, "v4 coll.nChannels");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.algo) == 88, "v4 coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.proto) == 96, "v4 coll.proto");
static_assert(offsetof(ncclProfilerEventDescr_v4_t, kernelCh.pTimer) == 32, "v4 kernelCh.pTimer");
static_assert(sizeof(ncclProfilerEventStateArgs_v4_t) == 8, "v4 state args");
#endif

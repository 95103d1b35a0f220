// ncclProfiler_v1_t: NCCL 2.23. Collective, algorithm, protocol and data type are numeric codes; there are no
// kernel events, so this version gives no timing (only Group/Coll/P2p/Proxy events exist).
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
      uint8_t func;  // ncclFunc_t
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      uint8_t datatype;
      uint32_t op;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      uint8_t algo;   // NCCL_ALGO_*
      uint8_t proto;  // NCCL_PROTO_*
      int isCollnet;
      int isNvls;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      uint8_t func;
      void* buff;
      uint8_t datatype;
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
} ncclProfilerEventDescr_v1_t;

typedef union {
  struct {
    size_t transSize;
    int steps;
  } proxyOp;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
} ncclProfilerEventStateArgs_v1_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v1_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v1_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v1_t;

#ifdef __cplusplus
}

// Offsets measured from NCCL's own header (x86-64), so a field moved by mistake fails the build.
static_assert(sizeof(ncclProfilerEventDescr_v1_t) == 120, "NCCL's v1 descriptor is 120 bytes");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.func) == 48, "v1 coll.func");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.count) == 72, "v1 coll.count");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.datatype) == 84, "v1 coll.datatype");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.nMaxChannels) == 104, "v1 coll.nMaxChannels");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.algo) == 106, "v1 coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.proto) == 107, "v1 coll.proto");
static_assert(sizeof(ncclProfilerEventStateArgs_v1_t) == 16, "v1 state args");
#endif

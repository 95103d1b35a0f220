// ncclProfiler_v7_t: NCCL 2.31.2 (current in 2.32). v6's five entry points with the same signatures; the
// descriptor gains the caller's user tag (ncclCollConfig_t's profiler tag; 0 when untagged) at the end of collApi,
// p2pApi, coll, p2p and ceColl, the collective's symmetric-kernel variant and flag (coll.kernelVariant,
// coll.isSymColl, before its userTag), and KernelPhase events (profiler_common.h, bit 15) with a kernelPhase member
// whose stop shares KernelCh's state arguments. Fields are appended inside union members, so the union grows (112 to
// 136 bytes): only a table declared with this layout may be exported as ncclProfiler_v7. Checked member by member
// against NVIDIA/nccl 88980683 (makefiles/version.mk 2.31.2), src/include/plugin/profiler/profiler_v7.h and
// nccl_profiler.h (docs/nccl-versions.md, "Profiler v7"); tests/abi/layout_test.cc checks every offset.
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plugin/nccl/profiler_v5.h"

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
      uint64_t userTag;    // v7: the caller's profiler tag, 0 when untagged
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
      uint64_t userTag;  // v7: the caller's profiler tag, 0 when untagged
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
      const char* kernelVariant;
      bool isSymColl;
      uint64_t userTag;  // v7: the caller's profiler tag, 0 when untagged
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
      uint64_t userTag;  // v7: the caller's profiler tag, 0 when untagged
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
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      const char* syncStrategy;
      bool intraBatchSync;
      uint32_t batchSize;
      uint32_t numBatches;
      uint32_t ceSeqNum;
      void* stream;
      uint64_t userTag;  // v7: the caller's profiler tag, 0 when untagged
    } ceColl;
    struct {
      bool isComplete;
      int nRanks;
    } ceCollSync;
    struct {
      int numOps;
      size_t totalBytes;
      bool useIntraSync;
    } ceCollBatch;
    struct {
      uint8_t channelId;
      uint8_t phaseId;  // 0 initial sync, 1 compute, 2 final sync
      const char* phaseName;
      uint64_t pTimer;
    } kernelPhase;
  };
} ncclProfilerEventDescr_v7_t;

// The same union as v5/v6: a KernelPhase stop (ncclProfilerKernelPhaseStop) passes its stamp in kernelCh.pTimer.
typedef ncclProfilerEventStateArgs_v5_t ncclProfilerEventStateArgs_v7_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v7_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v7_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v7_t;

#ifdef __cplusplus
}

// Offsets of NCCL 2.31.2's header (x86-64); the rest in tests/abi/layout_test.cc.
static_assert(sizeof(ncclProfilerEventDescr_v7_t) == 136, "NCCL layout: sizeof v7_t");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, collApi.userTag) == 72, "NCCL layout: v7_t.collApi.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, p2pApi.userTag) == 64, "NCCL layout: v7_t.p2pApi.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.algo) == 88, "NCCL layout: v7_t.coll.algo");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.parentGroup) == 104, "NCCL layout: v7_t.coll.parentGroup");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.kernelVariant) == 112, "NCCL layout: v7_t.coll.kernelVariant");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.isSymColl) == 120, "NCCL layout: v7_t.coll.isSymColl");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.userTag) == 128, "NCCL layout: v7_t.coll.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, p2p.userTag) == 72, "NCCL layout: v7_t.p2p.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, kernelCh.pTimer) == 32, "NCCL layout: v7_t.kernelCh.pTimer");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, ceColl.userTag) == 112, "NCCL layout: v7_t.ceColl.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.pTimer) == 40, "NCCL layout: v7_t.kernelPhase.pTimer");
static_assert(sizeof(ncclProfilerEventStateArgs_v7_t) == 8, "NCCL layout: sizeof ncclProfilerEventStateArgs_v7_t");
static_assert(sizeof(ncclProfiler_v7_t) == 6 * sizeof(void*), "name + v6's five entry points");
#endif

// UNRELEASED. ncclProfiler_v7_t as a copy of NCCL's 2.31 line had it: no NCCL release tag (through v2.30.7-1) and
// not the dev branch (2.31.0a7) declares a profiler v7, and the one public profiler_v7.h (NVIDIA/nccl pull request
// 2045) differs: there bit 15 is a user-tag event. Used only by builds with NCCL_ROCE_UNRELEASED_ABI, which are
// never packaged (docs/nccl-versions.md); when a release tags v7, check every line against it first.
// Adds user tags, the collective's kernel variant and symmetric flag, and KernelPhase events (whose stop shares the
// KernelCh state arguments).
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plugin/nccl/profiler_v5.h"

#ifdef __cplusplus
extern "C" {
#endif

// The event type this v7 adds (profiler_common.h holds the released ones).
enum { ncclProfileKernelPhase = (1 << 15) };

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
      bool graphCaptured;  // captured into a CUDA graph: its Coll events fire at capture only
      uint64_t userTag;  // v7: the caller's profiler tag, 0 when untagged
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

// Offsets measured from NCCL's own header (x86-64).
static_assert(sizeof(ncclProfilerEventDescr_v7_t) == 136, "NCCL layout: sizeof v7_t");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.parentGroup) == 104, "NCCL layout: v7_t.coll.parentGroup");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.kernelVariant) == 112, "NCCL layout: v7_t.coll.kernelVariant");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.isSymColl) == 120, "NCCL layout: v7_t.coll.isSymColl");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, coll.userTag) == 128, "NCCL layout: v7_t.coll.userTag");
static_assert(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.pTimer) == 40, "NCCL layout: v7_t.kernelPhase.pTimer");
static_assert(sizeof(ncclProfilerEventStateArgs_v7_t) == 8, "NCCL layout: sizeof ncclProfilerEventStateArgs_v7_t");
#endif

// Our declarations of what every version of NCCL's profiler ABI shares: the event-type bits a plugin sets in
// eActivationMask, the event states passed to recordEventState (numbered as in NCCL's nccl_profiler.h from 2.27
// on; the states we use, KernelChStop, exist from 2.27 only), and ncclPid_t. Checked through NCCL 2.31.2
// (docs/nccl-versions.md, "Profiler v7").
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "plugin/nccl/common.h"
#include "plugin/nccl/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef pid_t ncclPid_t;

enum {
  ncclProfileGroup = (1 << 0),  // a kernel plan: the collectives launched as one kernel
  ncclProfileColl = (1 << 1),   // a collective, host side: start when enqueued, stop once enqueued
  ncclProfileP2p = (1 << 2),
  ncclProfileProxyOp = (1 << 3),
  ncclProfileProxyStep = (1 << 4),
  ncclProfileProxyCtrl = (1 << 5),
  ncclProfileKernelCh = (1 << 6),  // v3+: one channel of a collective's kernel, delivered by the proxy thread
  ncclProfileNetPlugin = (1 << 7),
  ncclProfileGroupApi = (1 << 8),       // v5+
  ncclProfileCollApi = (1 << 9),        // v5+
  ncclProfileP2pApi = (1 << 10),        // v5+
  ncclProfileKernelLaunch = (1 << 11),  // v5+
  ncclProfileCeColl = (1 << 12),        // v6+
  ncclProfileCeSync = (1 << 13),        // v6+
  ncclProfileCeBatch = (1 << 14),       // v6+
  // v7+ (2.31.2): a kernel's barrier phases, each a child of a KernelCh event. Setting it makes NCCL turn KernelCh
  // on too and instrument every kernel's phases; nothing here sets it.
  ncclProfileKernelPhase = (1 << 15),
};

// Passed as an int: every version's recordEventState takes this enumeration.
typedef enum {
  ncclProfilerProxyOpSendPosted = 0,
  ncclProfilerProxyOpSendRemFifoWait = 1,
  ncclProfilerProxyOpSendTransmitted = 2,
  ncclProfilerProxyOpSendDone = 3,
  ncclProfilerProxyOpRecvPosted = 4,
  ncclProfilerProxyOpRecvReceived = 5,
  ncclProfilerProxyOpRecvTransmitted = 6,
  ncclProfilerProxyOpRecvDone = 7,
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendWait = 9,
  ncclProfilerProxyStepRecvWait = 10,
  ncclProfilerProxyStepRecvFlushWait = 11,
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerProxyCtrlIdle = 13,
  ncclProfilerProxyCtrlActive = 14,
  ncclProfilerProxyCtrlSleep = 15,
  ncclProfilerProxyCtrlWakeup = 16,
  ncclProfilerProxyCtrlAppend = 17,
  ncclProfilerProxyCtrlAppendEnd = 18,
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,
  ncclProfilerNetPluginUpdate = 21,
  ncclProfilerKernelChStop = 22,  // 2.27+: the channel's GPU stop stamp, in the state args' kernelCh.pTimer
  ncclProfilerGroupStartApiStop = 23,
  ncclProfilerGroupEndApiStart = 24,
  ncclProfilerCeCollStart = 25,
  ncclProfilerCeCollComplete = 26,
  ncclProfilerCeSyncStart = 27,
  ncclProfilerCeSyncComplete = 28,
  ncclProfilerCeBatchStart = 29,
  ncclProfilerCeBatchComplete = 30,
  ncclProfilerKernelPhaseStop = 31,  // v7+: a phase's GPU stop stamp, in the state args' kernelCh.pTimer
} ncclProfilerEventState_t;

#ifdef __cplusplus
}
#endif

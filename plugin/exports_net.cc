// The exported net tables, v6 (NCCL 2.19) to v12 (NCCL 2.30). Only init and devices do anything (see
// plugin/net_plugin.h); every other entry returns ncclInternalError, which is what NCCL's plugin README
// prescribes for the core misusing a plugin: with zero devices reported NCCL never calls them. Every entry is
// noexcept and builds the process context inside its guard (processContext() never throws).
#include "plugin/nccl/net_v10.h"
#include "plugin/nccl/net_v11.h"
#include "plugin/nccl/net_v12.h"
#include "plugin/nccl/net_v6.h"
#include "plugin/nccl/net_v7.h"
#include "plugin/nccl/net_v8.h"
#include "plugin/nccl/net_v9.h"
#include "plugin/process_context.h"

namespace {

using nccl_roce::plugin::kNetName;
using nccl_roce::plugin::NetPlugin;
using nccl_roce::plugin::ProcessContext;
using nccl_roce::plugin::processContext;

template <typename Fn>
struct NotCalled;
template <typename... Args>
struct NotCalled<ncclResult_t (*)(Args...)> {
  static ncclResult_t call(Args...) noexcept { return ncclInternalError; }
};
#define NCCL_ROCE_NOT_CALLED(table, member) NotCalled<decltype(table::member)>::call

ncclResult_t initV6(ncclDebugLogger_t logFunction) noexcept {
  // No context (out of memory): the environment stays as it is and NCCL's defaults apply.
  ProcessContext* process = processContext();
  return process != nullptr ? process->netPlugin().init(logFunction) : ncclSuccess;
}
ncclResult_t initV10(ncclDebugLogger_t logFunction, ncclProfilerCallback_t) noexcept {
  return initV6(logFunction);
}

// v11+ call init once per communicator and hand back a context; ours carries nothing.
char perCommunicatorContext;
template <typename Config>
ncclResult_t initV11(void** ctx, uint64_t, Config*, ncclDebugLogger_t logFunction, ncclProfilerCallback_t) noexcept {
  if (ctx != nullptr) *ctx = &perCommunicatorContext;
  return initV6(logFunction);
}
ncclResult_t finalizeV11(void*) noexcept {
  return ncclSuccess;
}

}  // namespace

// The members common to every version, from listen to closeListen.
#define NCCL_ROCE_NET_COMMON(T)                                                                              \
  NCCL_ROCE_NOT_CALLED(T, getProperties), NCCL_ROCE_NOT_CALLED(T, listen), NCCL_ROCE_NOT_CALLED(T, connect), \
      NCCL_ROCE_NOT_CALLED(T, accept), NCCL_ROCE_NOT_CALLED(T, regMr), NCCL_ROCE_NOT_CALLED(T, regMrDmaBuf), \
      NCCL_ROCE_NOT_CALLED(T, deregMr), NCCL_ROCE_NOT_CALLED(T, isend), NCCL_ROCE_NOT_CALLED(T, irecv),      \
      NCCL_ROCE_NOT_CALLED(T, iflush), NCCL_ROCE_NOT_CALLED(T, test), NCCL_ROCE_NOT_CALLED(T, closeSend),    \
      NCCL_ROCE_NOT_CALLED(T, closeRecv), NCCL_ROCE_NOT_CALLED(T, closeListen)
#define NCCL_ROCE_NET_V7(T) NCCL_ROCE_NOT_CALLED(T, getDeviceMr), NCCL_ROCE_NOT_CALLED(T, irecvConsumed)

// NCCL 2.19 - 2.19.x (v6 and v7 both exist since 2.19; NCCL takes the newest it knows).
extern "C" __attribute__((visibility("default")))
const ncclNet_v6_t ncclNetPlugin_v6 = {kNetName, initV6, NetPlugin::devices, NCCL_ROCE_NET_COMMON(ncclNet_v6_t)};

extern "C" __attribute__((visibility("default"))) const ncclNet_v7_t ncclNetPlugin_v7 = {
    kNetName, initV6, NetPlugin::devices, NCCL_ROCE_NET_COMMON(ncclNet_v7_t), NCCL_ROCE_NET_V7(ncclNet_v7_t)};

// NCCL 2.20 - 2.23.
extern "C" __attribute__((visibility("default"))) const ncclNet_v8_t ncclNetPlugin_v8 = {
    kNetName, initV6, NetPlugin::devices, NCCL_ROCE_NET_COMMON(ncclNet_v8_t), NCCL_ROCE_NET_V7(ncclNet_v8_t)};

// NCCL 2.24 - 2.25.
extern "C" __attribute__((visibility("default")))
const ncclNet_v9_t ncclNetPlugin_v9 = {kNetName,
                                       initV6,
                                       NetPlugin::devices,
                                       NCCL_ROCE_NET_COMMON(ncclNet_v9_t),
                                       NCCL_ROCE_NET_V7(ncclNet_v9_t),
                                       NCCL_ROCE_NOT_CALLED(ncclNet_v9_t, makeVDevice)};

// NCCL 2.26 - 2.27.
extern "C" __attribute__((visibility("default")))
const ncclNet_v10_t ncclNetPlugin_v10 = {kNetName,
                                         initV10,
                                         NetPlugin::devices,
                                         NCCL_ROCE_NET_COMMON(ncclNet_v10_t),
                                         NCCL_ROCE_NET_V7(ncclNet_v10_t),
                                         NCCL_ROCE_NOT_CALLED(ncclNet_v10_t, makeVDevice)};

// NCCL 2.28 - 2.29.
extern "C" __attribute__((visibility("default")))
const ncclNet_v11_t ncclNetPlugin_v11 = {kNetName,
                                         initV11<ncclNetCommConfig_v11_t>,
                                         NetPlugin::devices,
                                         NCCL_ROCE_NET_COMMON(ncclNet_v11_t),
                                         NCCL_ROCE_NET_V7(ncclNet_v11_t),
                                         NCCL_ROCE_NOT_CALLED(ncclNet_v11_t, makeVDevice),
                                         finalizeV11,
                                         NCCL_ROCE_NOT_CALLED(ncclNet_v11_t, setNetAttr)};

// NCCL 2.30 and later.
extern "C" __attribute__((visibility("default")))
const ncclNet_v12_t ncclNetPlugin_v12 = {kNetName,
                                         initV11<ncclNetCommConfig_v12_t>,
                                         NetPlugin::devices,
                                         NCCL_ROCE_NET_COMMON(ncclNet_v12_t),
                                         NCCL_ROCE_NET_V7(ncclNet_v12_t),
                                         NCCL_ROCE_NOT_CALLED(ncclNet_v12_t, makeVDevice),
                                         finalizeV11,
                                         NCCL_ROCE_NOT_CALLED(ncclNet_v12_t, setNetAttr)};

// The resolution behind the env and net plugins, with a deadline. It runs inside NCCL's init, and a device
// whose verbs or sysfs calls block (firmware stuck in a command, a driver reset) would otherwise hold that
// init for as long as the kernel lets the call hang. So it runs on a worker thread and the caller waits at
// most the deadline; past it the caller goes on without a result. A worker on time is joined before the caller
// returns (nothing of ours runs after NCCL's dlclose); the late worker is left to finish on its own, which is
// safe because:
// - it owns everything it touches (its copy of the resolver, its log lines, its result), shared with the
//   caller through one reference-counted job, so nothing it uses is freed under it. The Environment is the
//   exception: it must outlive the worker (the process environment does);
// - it never writes to NCCL's logger (NCCL may have moved on, or be gone): its lines are replayed by the
//   caller when it finishes in time, and dropped with the job otherwise;
// - it is never cancelled: cancelling a thread inside libibverbs would leave the library's locks held. It
//   ends when the call returns, or with the process. libibverbs stays loaded for the life of the process
//   (gid/verbs.h), and this library is pinned when a worker is abandoned (RTLD_NODELETE), so a dlclose by
//   NCCL cannot unmap code the worker is still running.
#pragma once

#include <chrono>

#include "common/env.h"
#include "common/log.h"
#include "plugin/served_settings.h"

namespace nccl_roce::plugin {

// The bound on one resolution: about 500 times the slowest measured (docs/performance.md), short against the
// 60 s a stuck firmware command can take.
inline constexpr std::chrono::milliseconds kResolutionDeadline{5000};

// resolver(env, ...) on a worker thread, waited for at most `deadline`. On time: its result, its log lines
// written to `log`. Late, throwing, or no thread to be had: a ServedSettings that serves nothing, with
// `failure` saying why. Never throws.
ServedSettings resolveWithin(const SettingsResolver& resolver, const Environment& env,
                             std::chrono::milliseconds deadline, Logger& log) noexcept;

}  // namespace nccl_roce::plugin

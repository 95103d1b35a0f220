// Who writes a metrics textfile, and under which name (docs/kubernetes.md, "Metrics"). Every pod on a node writes
// into node-exporter's one textfile directory, and each pod has its own pid namespace (its processes' pids are
// small and repeat from pod to pod) and its own host name (the pod's name): a name made of the pid alone collides.
// The name is the pod's namespace and name, the pid, and the process's start time (clock ticks since the node
// booted, the same clock in every namespace), so two processes never share one, not even the same pod's process
// restarted with the same pid.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/env.h"
#include "telemetry/open_metrics.h"

namespace nccl_roce::plugin {

struct TextfileIdentity {
  telemetry::ProcessLabels labels;
  std::string fileName;  // nccl-roce.[<namespace>.]<pod>.<pid>.<start>.prom
};

// From the downward-API variables POD_NAMESPACE, POD_NAME and NODE_NAME in `env` (POD_NAME and NODE_NAME default
// to the host name), the pid and the start time.
TextfileIdentity textfileIdentity(const Environment& env, const std::string& hostName, long pid, uint64_t startTicks);

// This process's start time in clock ticks since boot, the 22nd field of `statPath` (proc(5)); 0 when it cannot
// be read.
uint64_t processStartTicks(const std::string& statPath = "/proc/self/stat");

// A textfile of ours that nothing has rewritten for this long belongs to a process that is gone (killed before it
// could remove it) or that has no communicator left: any live writer in the directory removes it
// (plugin/textfile_sweep.h). Live writers rewrite theirs every 10 s.
inline constexpr std::chrono::minutes kTextfileMaxAge{15};

// A name the plugin's textfiles have: nccl-roce.*.prom, or a temporary file of common/file.h's writeFileAt next to
// one (.nccl-roce.*.tmp-<16 hex digits>, or nccl-roce.*.prom.tmp.<pid> from versions before it).
bool isOurTextfile(const std::string& name);

}  // namespace nccl_roce::plugin

#include <cstdio>

#include "cli/doctor/checks.h"
#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce::doctor {

namespace {
// NCCL registers its buffers with the NIC; several GiB per process is common. Below this, registration fails.
constexpr uint64_t kMemlockNeeded = 64ull << 30;

bool moduleLoaded(const DoctorInputs& in, const std::string& name) {
  if (in.sysfs->exists("module/" + name)) return true;
  auto modules = readFileBounded(in.procRoot + "/modules", 1 << 20);
  if (!modules.isOk()) return false;
  for (std::string_view line : split(*modules, '\n')) {
    if (startsWith(line, name + " ")) return true;
  }
  return false;
}

// "5.15.0-91-generic" -> 5.15
std::optional<std::pair<int, int>> kernelVersion(const DoctorInputs& in) {
  auto text = readFileBounded(in.procRoot + "/sys/kernel/osrelease", 256);
  if (!text.isOk()) return std::nullopt;
  int major = 0, minor = 0;
  if (std::sscanf(text->c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}
}  // namespace

CheckResult checkMemlock(const DoctorInputs& in) {
  const char* id = "memlock";
  const char* title = "Locked-memory limit";
  if (!in.liveMachine) return CheckResult::skip(id, title, "not this machine's process");
  std::optional<uint64_t> limit = in.memlockLimit ? in.memlockLimit() : std::nullopt;
  if (!limit) return CheckResult::pass(id, title, "unlimited");
  std::string detail = formatByteSize(*limit) + " bytes (RLIMIT_MEMLOCK)";
  if (*limit < kMemlockNeeded) {
    return CheckResult::fail(id, title, detail,
                             "RDMA memory registration will fail: give the container the IPC_LOCK capability and an "
                             "unlimited memlock limit (ulimit -l unlimited)");
  }
  return CheckResult::pass(id, title, detail);
}

CheckResult checkPeerMemory(const DoctorInputs& in) {
  const char* id = "peer-memory";
  const char* title = "GPUDirect RDMA (peer memory)";
  if (!in.liveMachine && !in.procRootGiven) return CheckResult::skip(id, title, "not this machine (give --proc-root)");
  if (!moduleLoaded(in, "nvidia")) return CheckResult::skip(id, title, "no NVIDIA driver loaded on this host");
  if (moduleLoaded(in, "nvidia_peermem")) return CheckResult::pass(id, title, "nvidia_peermem is loaded");
  auto kernel = kernelVersion(in);
  bool dmabufKernel = kernel && (kernel->first > 5 || (kernel->first == 5 && kernel->second >= 12));
  std::string detail = "nvidia_peermem is not loaded; kernel " +
                       (kernel ? std::to_string(kernel->first) + "." + std::to_string(kernel->second) : "unknown");
  if (dmabufKernel) {
    return CheckResult::warn(
        id, title, detail + " supports dma-buf",
        "NCCL can use dma-buf for GPUDirect RDMA with NVIDIA's open kernel modules (driver >= 515); "
        "otherwise load nvidia_peermem, or NCCL stages through host memory");
  }
  return CheckResult::fail(id, title, detail + " predates dma-buf (5.12)",
                           "load nvidia_peermem (modprobe nvidia_peermem) on the host, or NCCL stages every transfer "
                           "through host memory");
}

}  // namespace nccl_roce::doctor

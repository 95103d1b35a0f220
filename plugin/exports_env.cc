// The exported env tables. NCCL (2.28.7 and later) dlsyms ncclEnvPlugin_v2, then _v1. Every entry is noexcept
// and builds the process context inside its guard (processContext() never throws).
#include <cstdlib>

#include "plugin/nccl/env_v1.h"
#include "plugin/nccl/env_v2.h"
#include "plugin/process_context.h"

namespace {

using nccl_roce::plugin::ProcessContext;
using nccl_roce::plugin::processContext;

ncclResult_t initV2(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix,
                    ncclDebugLogger_t logFunction) noexcept {
  // No context (out of memory): nothing is served and every variable passes through.
  if (ProcessContext* process = processContext()) process->envPlugin().init(major, minor, patch, suffix, logFunction);
  return ncclSuccess;  // an error here would fail NCCL's own initialisation
}
ncclResult_t initV1(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix) noexcept {
  return initV2(major, minor, patch, suffix, nullptr);
}
ncclResult_t finalize() noexcept {
  if (ProcessContext* process = processContext()) process->envPlugin().finalize();
  return ncclSuccess;
}
const char* getEnv(const char* name) noexcept {
  ProcessContext* process = processContext();
  // NOLINTNEXTLINE(concurrency-mt-unsafe): what NCCL reads without us, as it would read it
  if (process == nullptr) return name != nullptr ? std::getenv(name) : nullptr;
  return process->envPlugin().getEnv(name);
}

}  // namespace

// NCCL 2.28.7.
extern "C" __attribute__((visibility("default")))
const ncclEnv_v1_t ncclEnvPlugin_v1 = {"nccl-roce", initV1, finalize, getEnv};

// NCCL 2.28.7 and later, with NCCL's logger.
extern "C" __attribute__((visibility("default")))
const ncclEnv_v2_t ncclEnvPlugin_v2 = {"nccl-roce", initV2, finalize, getEnv};

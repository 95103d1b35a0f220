// The exported env tables. NCCL (2.28.7 and later) dlsyms ncclEnvPlugin_v2, then _v1.
#include "plugin/env_plugin.h"
#include "plugin/nccl/env_v1.h"
#include "plugin/nccl/env_v2.h"

namespace {

using nccl_roce::plugin::processEnvPlugin;

ncclResult_t initV2(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix, ncclDebugLogger_t logFunction) {
  processEnvPlugin().init(major, minor, patch, suffix, logFunction);
  return ncclSuccess;  // an error here would fail NCCL's own initialisation
}
ncclResult_t initV1(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix) {
  return initV2(major, minor, patch, suffix, nullptr);
}
ncclResult_t finalize() {
  processEnvPlugin().finalize();
  return ncclSuccess;
}
const char* getEnv(const char* name) { return processEnvPlugin().getEnv(name); }

}  // namespace

// NCCL 2.28.7.
extern "C" __attribute__((visibility("default")))
const ncclEnv_v1_t ncclEnvPlugin_v1 = {"nccl-roce", initV1, finalize, getEnv};

// NCCL 2.28.7 and later, with NCCL's logger.
extern "C" __attribute__((visibility("default")))
const ncclEnv_v2_t ncclEnvPlugin_v2 = {"nccl-roce", initV2, finalize, getEnv};

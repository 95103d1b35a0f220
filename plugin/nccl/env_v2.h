// ncclEnv_v2_t: init also receives NCCL's logger.
#pragma once

#include <stdint.h>

#include "plugin/nccl/common.h"
#include "plugin/nccl/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch, const char* suffix,
                       ncclDebugLogger_t logFunction);
  ncclResult_t (*finalize)(void);
  const char* (*getEnv)(const char* name);
} ncclEnv_v2_t;

#ifdef __cplusplus
}
static_assert(sizeof(ncclEnv_v2_t) == 4 * sizeof(void*), "name + three entry points");
#endif

// ncclEnv_v1_t: NCCL 2.28.7. NCCL asks the env plugin for every variable it reads; the returned pointer must
// stay valid until the next getEnv of the same name or finalize.
#pragma once

#include <stdint.h>

#include "plugin/nccl/common.h"
#include "plugin/nccl/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch, const char* suffix);
  ncclResult_t (*finalize)(void);
  const char* (*getEnv)(const char* name);
} ncclEnv_v1_t;

#ifdef __cplusplus
}
static_assert(sizeof(ncclEnv_v1_t) == 4 * sizeof(void*), "name + three entry points");
#endif

// Our declaration of NCCL's result codes, as the plugin ABI passes them (values fixed by NCCL).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,      // a kernel call or system library failed
  ncclInternalError = 3,    // NCCL core misused the plugin
  ncclInvalidArgument = 4,  // plugins should not return this one
  ncclInvalidUsage = 5,     // likely a user or configuration error
  ncclRemoteError = 6,
  ncclInProgress = 7,
} ncclResult_t;

#ifdef __cplusplus
}
#endif

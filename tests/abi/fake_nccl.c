/* A stand-in for libnccl.so in the ABI harness: what the tuner reads of the NCCL that calls it, its logger (the
   function NCCL passes to init) and ncclGetVersion, whose answer a test sets. */
#include <stdarg.h>

static int version = 0;

__attribute__((visibility("default"))) void fakeNcclSetVersion(int code) {
  version = code;
}

__attribute__((visibility("default"))) int ncclGetVersion(int* out) {
  if (out == 0) return 4; /* ncclInvalidArgument */
  *out = version;
  return 0;
}

__attribute__((visibility("default"))) void fakeNcclLog(int level, unsigned long flags, const char* file, int line,
                                                        const char* fmt, ...) {
  (void)level;
  (void)flags;
  (void)file;
  (void)line;
  (void)fmt;
}

// A stand-in for NCCL's logger (the function pointer NCCL hands to a plugin's init): keeps every line so
// tests can assert on what an operator would see with NCCL_DEBUG=INFO.
#pragma once

#include <string>
#include <vector>

#include "plugin/nccl/common.h"

namespace nccl_roce::testing {

struct NcclLogLine {
  ncclDebugLogLevel level;
  unsigned long flags;
  std::string text;
};

void captureNcclLog(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

std::vector<NcclLogLine> capturedNcclLog();
void clearCapturedNcclLog();
// Lines at `level` that contain `needle`.
size_t countCapturedNcclLog(ncclDebugLogLevel level, const std::string& needle = "");

}  // namespace nccl_roce::testing

#include "tests/support/nccl_log_capture.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace nccl_roce::testing {

namespace {
std::mutex& mutex() {
  static std::mutex m;
  return m;
}
std::vector<NcclLogLine>& lines() {
  static std::vector<NcclLogLine> l;
  return l;
}
}  // namespace

void captureNcclLog(ncclDebugLogLevel level, unsigned long flags, const char*, int, const char* fmt, ...) {
  char buffer[4096];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  std::lock_guard<std::mutex> lock(mutex());
  lines().push_back({level, flags, buffer});
}

std::vector<NcclLogLine> capturedNcclLog() {
  std::lock_guard<std::mutex> lock(mutex());
  return lines();
}

void clearCapturedNcclLog() {
  std::lock_guard<std::mutex> lock(mutex());
  lines().clear();
}

size_t countCapturedNcclLog(ncclDebugLogLevel level, const std::string& needle) {
  std::lock_guard<std::mutex> lock(mutex());
  size_t n = 0;
  for (const auto& l : lines()) n += l.level == level && l.text.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

}  // namespace nccl_roce::testing

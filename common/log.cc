#include "common/log.h"

#include <cerrno>
#include <cstdio>
#include <vector>

namespace nccl_roce {

namespace {
class NullLogger final : public Logger {
 public:
  void log(LogLevel, unsigned long, const char*, int, const std::string&) override {}
};
}  // namespace

Logger& nullLogger() {
  static NullLogger instance;
  return instance;
}

std::string vformat(const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  char small[256];
  int needed = std::vsnprintf(small, sizeof(small), fmt, copy);
  va_end(copy);
  if (needed < 0) return std::string();
  if (static_cast<size_t>(needed) < sizeof(small)) return std::string(small, static_cast<size_t>(needed));
  std::vector<char> big(static_cast<size_t>(needed) + 1);
  std::vsnprintf(big.data(), big.size(), fmt, args);
  return std::string(big.data(), static_cast<size_t>(needed));
}

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string out = vformat(fmt, args);
  va_end(args);
  return out;
}

void logf(Logger& logger, LogLevel level, unsigned long subsystem, const char* file, int line, const char* fmt, ...) {
  int savedErrno = errno;
  va_list args;
  va_start(args, fmt);
  // Logging never throws: callers log from catch blocks and noexcept entry points. Out of memory, the line is
  // dropped.
  try {
    std::string message = vformat(fmt, args);
    logger.log(level, subsystem, file, line, message);
  } catch (...) {
  }
  va_end(args);
  errno = savedErrno;
}

}  // namespace nccl_roce

// Logging seam. Inside NCCL, messages go through the logger NCCL passed to init (plugin/nccl_logger.h);
// in the CLI they go to stderr; in tests they are captured. Code below the plugin edge only sees Logger.
#pragma once

#include <cstdarg>
#include <string>

namespace nccl_roce {

// Values are NCCL's ncclDebugLogLevel, so the NCCL adapter passes them through unchanged.
enum class LogLevel { kWarn = 2, kInfo = 3, kTrace = 5 };

// NCCL subsystem flags we log under (values of ncclDebugLogSubSys).
enum LogSubsystem : unsigned long {
  kLogInit = 0x1,
  kLogNet = 0x10,
  kLogTuning = 0x40,
  kLogEnv = 0x80,
  kLogProfile = 0x4000,
};

class Logger {
 public:
  virtual ~Logger() = default;
  virtual void log(LogLevel level, unsigned long subsystem, const char* file, int line, const std::string& message) = 0;
};

// What every line we write through NCCL's logger starts with, before ": " (plugin/nccl_logger.h), so operators
// can grep for it and the readers of NCCL's log (inspect/nccl_info_log.h) find our lines.
inline constexpr const char* kNcclLogPrefix = "NCCL-RoCE";

// Discards everything; the default wherever no logger was given.
Logger& nullLogger();

// printf-style front end; keeps errno intact so callers can log between a failing call and its errno check.
// Never throws (a line that cannot be formatted for lack of memory is dropped).
void logf(Logger& logger, LogLevel level, unsigned long subsystem, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 6, 7)));

std::string vformat(const char* fmt, va_list args) __attribute__((format(printf, 1, 0)));
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace nccl_roce

#define NCCL_ROCE_WARN(logger, subsys, ...) \
  ::nccl_roce::logf((logger), ::nccl_roce::LogLevel::kWarn, (subsys), __FILE__, __LINE__, __VA_ARGS__)
#define NCCL_ROCE_INFO(logger, subsys, ...) \
  ::nccl_roce::logf((logger), ::nccl_roce::LogLevel::kInfo, (subsys), __FILE__, __LINE__, __VA_ARGS__)
#define NCCL_ROCE_TRACE(logger, subsys, ...) \
  ::nccl_roce::logf((logger), ::nccl_roce::LogLevel::kTrace, (subsys), __FILE__, __LINE__, __VA_ARGS__)

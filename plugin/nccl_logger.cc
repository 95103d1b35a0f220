#include "plugin/nccl_logger.h"

namespace nccl_roce {

void NcclLogger::log(LogLevel level, unsigned long subsystem, const char* file, int line, const std::string& message) {
  ncclDebugLogger_t fn = function();
  if (fn == nullptr) return;
  // Pass the text as an argument, never as the format: a '%' in a path must not be interpreted.
  fn(static_cast<ncclDebugLogLevel>(level), subsystem, file, line, "%s: %s", kNcclLogPrefix, message.c_str());
}

}  // namespace nccl_roce

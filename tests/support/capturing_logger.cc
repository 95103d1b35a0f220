#include "tests/support/capturing_logger.h"

namespace nccl_roce::testing {

void CapturingLogger::log(LogLevel level, unsigned long subsystem, const char*, int, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_.push_back({level, subsystem, message});
}

std::vector<CapturingLogger::Line> CapturingLogger::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

size_t CapturingLogger::count(LogLevel level) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& line : lines_) n += line.level == level ? 1 : 0;
  return n;
}

std::string CapturingLogger::text(LogLevel level) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const auto& line : lines_) {
    if (line.level != level) continue;
    if (!out.empty()) out += '\n';
    out += line.message;
  }
  return out;
}

}  // namespace nccl_roce::testing

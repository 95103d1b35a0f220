// A Logger that keeps every line, so tests can assert on what an operator would read.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"

namespace nccl_roce::testing {

class CapturingLogger final : public Logger {
 public:
  struct Line {
    LogLevel level;
    unsigned long subsystem;
    std::string message;
  };

  void log(LogLevel level, unsigned long subsystem, const char* file, int line, const std::string& message) override;

  std::vector<Line> lines() const;
  size_t count(LogLevel level) const;
  // All messages at `level`, joined with newlines (for readable EXPECT_THAT failures).
  std::string text(LogLevel level) const;

 private:
  mutable std::mutex mutex_;
  std::vector<Line> lines_;
};

}  // namespace nccl_roce::testing

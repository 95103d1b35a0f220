// A file the plugin cannot write, said once: the statistics files and the metrics textfile each keep one of these
// (docs/environment.md). The first failure in the process, on whichever thread meets it (a writer thread's
// checkpoint, or NCCL's at an init, when the directory is made, or at a finalize), is one WARN through NCCL's
// logger naming the file and the reason; later failures are counted, not repeated, so a full disk does not flood
// the log, and every later write tries again. The process context keeps them for the life of the process, NCCL's
// unloads and reloads of the library included (plugin/library_pin.h): "once" holds across communicators, threads
// and reloads. Thread-safe; never throws.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/log.h"
#include "common/status.h"

namespace nccl_roce::plugin {

class WriteFailures {
 public:
  // `what` names the file in the WARN ("statistics file"), `variable` the setting that asked for it; `logger` must
  // outlive this (the process context's does).
  WriteFailures(const char* what, const char* variable, Logger& logger)
      : what_(what), variable_(variable), logger_(logger) {}

  // The outcome of a write of `path` (or of making its directory): an error is counted, and said if it is the
  // process's first.
  void report(const std::string& path, const Status& written) noexcept;
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  const char* const what_;
  const char* const variable_;
  Logger& logger_;
  std::atomic<uint64_t> failures_{0};
};

}  // namespace nccl_roce::plugin

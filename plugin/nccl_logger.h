// Adapts NCCL's logger (the function pointer handed to a plugin's init) to our Logger seam.
// Tolerates a null logger; prefixes every line so operators can grep for it in NCCL_DEBUG=INFO output.
#pragma once

#include <atomic>

#include "common/log.h"
#include "plugin/nccl/common.h"

namespace nccl_roce {

class NcclLogger final : public Logger {
 public:
  explicit NcclLogger(ncclDebugLogger_t fn = nullptr) : fn_(Slot{fn}) {}
  // Several communicators may init at once; each hands over the same NCCL logger, so last-writer-wins is fine.
  void setFunction(ncclDebugLogger_t fn) { fn_.store(Slot{fn}, std::memory_order_release); }
  ncclDebugLogger_t function() const { return fn_.load(std::memory_order_acquire).fn; }

  void log(LogLevel level, unsigned long subsystem, const char* file, int line, const std::string& message) override;

 private:
  // Wrapped because std::atomic drops the printf attribute of the bare pointer type.
  struct Slot {
    ncclDebugLogger_t fn;
  };
  std::atomic<Slot> fn_;
};

}  // namespace nccl_roce

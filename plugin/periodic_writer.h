// A background thread that runs one piece of work every interval, and soon after wake(), between start() and
// stop(). The statistics checkpoints (plugin/telemetry_file.h) and the metrics textfile
// (plugin/metrics_textfile.h) each run one while at least one communicator is live and stop it at the last
// finalize, so no thread of ours is left running when NCCL dlcloses this library (plugin/library_pin.h keeps the
// library mapped as well). Thread-safe; never throws.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace nccl_roce::plugin {

class PeriodicWriter {
 public:
  // `work` runs on the thread only; what it throws is dropped (the next round tries again).
  PeriodicWriter(std::chrono::milliseconds interval, std::function<void()> work);
  ~PeriodicWriter() { stop(); }
  PeriodicWriter(const PeriodicWriter&) = delete;
  PeriodicWriter& operator=(const PeriodicWriter&) = delete;

  // Starts the thread unless it runs already. False when no thread could be made: the caller then does the
  // work itself.
  bool start() noexcept;
  // Runs the work once more as soon as the thread can; wakes that come while it works make one more round.
  void wake() noexcept;
  // Stops the thread and joins it: when this returns, the work is not running and will not run again until the
  // next start(). Never from inside the work.
  void stop() noexcept;
  bool running() const;

 private:
  void run() noexcept;

  const std::chrono::milliseconds interval_;
  const std::function<void()> work_;
  mutable std::mutex control_;  // start and stop, one at a time
  std::thread thread_;          // under control_
  std::mutex mutex_;            // the flags below
  std::condition_variable wakeUp_;
  bool stopping_ = false, woken_ = false;
};

}  // namespace nccl_roce::plugin

#include "plugin/periodic_writer.h"

#include <utility>

namespace nccl_roce::plugin {

PeriodicWriter::PeriodicWriter(std::chrono::milliseconds interval, std::function<void()> work)
    : interval_(interval), work_(std::move(work)) {}

bool PeriodicWriter::start() noexcept {
  std::lock_guard<std::mutex> control(control_);
  if (thread_.joinable()) return true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = woken_ = false;
  }
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {  // no thread to be had (std::system_error), or no memory for it
    return false;
  }
  return true;
}

void PeriodicWriter::wake() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    woken_ = true;
  }
  wakeUp_.notify_one();
}

void PeriodicWriter::stop() noexcept {
  std::lock_guard<std::mutex> control(control_);
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wakeUp_.notify_one();
  thread_.join();
}

bool PeriodicWriter::running() const {
  std::lock_guard<std::mutex> control(control_);
  return thread_.joinable();
}

void PeriodicWriter::run() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wakeUp_.wait_for(lock, interval_, [this] { return stopping_ || woken_; });
    if (stopping_) break;
    woken_ = false;
    lock.unlock();
    try {
      work_();
    } catch (...) {
      // A full disk or a vanished directory: the next round tries again.
    }
    lock.lock();
  }
}

}  // namespace nccl_roce::plugin

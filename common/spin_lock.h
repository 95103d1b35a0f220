// The one lock of state that NCCL's per-event and per-call entry points share between threads: a
// communicator's collective records and decision counts, the profiler's tracker slots. It is held for at most a
// few hundred instructions on those paths and is almost never contended, so a waiter yields its core and tries
// again. std::mutex would wait no better and costs 56 instructions per lock and unlock through the .so, where
// this costs 8 (callgrind, docs/performance.md): at four per collective, a fifth of the profiler's budget.
// Lockable: take it with std::lock_guard.
#pragma once

#include <atomic>
#include <thread>

namespace nccl_roce {

class SpinLock {
 public:
  void lock() noexcept {
    while (busy_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  bool try_lock() noexcept { return !busy_.test_and_set(std::memory_order_acquire); }
  void unlock() noexcept { busy_.clear(std::memory_order_release); }

 private:
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
};

}  // namespace nccl_roce

// The lock of per-event state: one holder at a time, for std::lock_guard like any Lockable.
#include "common/spin_lock.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

namespace nccl_roce {
namespace {

TEST(SpinLock, OneHolderAtATime) {
  SpinLock lock;
  uint64_t counter = 0;  // plain: only the lock keeps the increments apart (TSan, label concurrency)
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        std::lock_guard<SpinLock> hold(lock);
        ++counter;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counter, 80000u);
}

TEST(SpinLock, TryLockFailsWhileHeld) {
  SpinLock lock;
  ASSERT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock();
  EXPECT_TRUE(lock.try_lock());
  lock.unlock();
}

}  // namespace
}  // namespace nccl_roce

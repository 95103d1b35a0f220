// The background writer behind the statistics checkpoints and the metrics textfile: work every interval and soon
// after a wake, nothing after stop() returns, and a stopped writer that starts again.
#include "plugin/periodic_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace nccl_roce::plugin {
namespace {

using std::chrono::milliseconds;

// Waits up to five seconds for `done`.
template <typename Done>
bool eventually(Done done) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(milliseconds(10));
  return done();
}

TEST(PeriodicWriter, WorksEveryIntervalWhileStarted) {
  std::atomic<int> rounds{0};
  PeriodicWriter writer(milliseconds(10), [&] { ++rounds; });
  EXPECT_FALSE(writer.running());
  ASSERT_TRUE(writer.start());
  EXPECT_TRUE(eventually([&] { return rounds >= 3; }));
  writer.stop();
  int stopped = rounds;
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(rounds, stopped) << "no round after stop() returned";
  EXPECT_FALSE(writer.running());
}

TEST(PeriodicWriter, AWakeRunsTheWorkWithoutWaitingForTheInterval) {
  std::atomic<int> rounds{0};
  PeriodicWriter writer(std::chrono::hours(1), [&] { ++rounds; });
  ASSERT_TRUE(writer.start());
  writer.wake();
  EXPECT_TRUE(eventually([&] { return rounds == 1; }));
  writer.wake();
  EXPECT_TRUE(eventually([&] { return rounds == 2; }));
}

TEST(PeriodicWriter, StartsAgainAfterStopAndSurvivesWorkThatThrows) {
  std::atomic<int> rounds{0};
  PeriodicWriter writer(std::chrono::hours(1), [&] {
    ++rounds;
    throw std::runtime_error("disk full");
  });
  ASSERT_TRUE(writer.start());
  EXPECT_TRUE(writer.start()) << "running already: nothing to do";
  writer.wake();
  EXPECT_TRUE(eventually([&] { return rounds == 1; }));
  writer.stop();
  writer.stop();
  ASSERT_TRUE(writer.start());
  writer.wake();
  EXPECT_TRUE(eventually([&] { return rounds == 2; }));
}

}  // namespace
}  // namespace nccl_roce::plugin

// The doctor's child processes: what they print comes back, they see exactly the environment given, and a child
// that outlives its time bound is killed with everything it started.
#include "cli/doctor/child_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/file.h"

namespace nccl_roce::testing {
namespace {

using doctor::runChild;
using ::testing::HasSubstr;

// Whether process `pid` is gone or a zombie (dead, waiting for its parent to collect it).
bool dead(pid_t pid) {
  auto stat = readFileBounded("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat.isOk()) return true;
  size_t close = stat->rfind(')');  // "pid (comm) S ...": the state follows the command's name
  return close != std::string::npos && stat->compare(close + 2, 1, "Z") == 0;
}

TEST(ChildProcess, ReturnsWhatTheChildPrintedAndItsExitStatus) {
  auto r = runChild("/bin/sh", {"-c", "echo out; echo err >&2; exit 3"}, {}, 10000);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(ChildProcess, SeesExactlyTheEnvironmentGiven) {
  auto r = runChild("/usr/bin/env", {}, {"PYTHONPATH=/opt/site", "HOME=/home/vllm"}, 10000);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out, "PYTHONPATH=/opt/site\nHOME=/home/vllm\n");
}

TEST(ChildProcess, AProgramThatCannotStartSaysWhy) {
  auto r = runChild("/nonexistent/python3", {}, {}, 10000);
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.error, HasSubstr("No such file or directory"));
}

TEST(ChildProcess, KillsTheChildAndWhatItStartedAtTheTimeBound) {
  // The child starts a grandchild that holds the output open, says its pid, and waits for it.
  auto start = std::chrono::steady_clock::now();
  auto r = runChild("/bin/sh", {"-c", "sleep 60 & echo $!; wait"}, {}, 300);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(r.timedOut);
  EXPECT_EQ(r.exitCode, -1);
  ASSERT_FALSE(r.out.empty()) << "the child said no pid";
  pid_t grandchild = std::stoi(r.out);
  for (int i = 0; i < 200 && !dead(grandchild); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(dead(grandchild)) << "sleep " << grandchild << " outlived the time bound";
}

TEST(ChildProcess, AChildThatClosesItsOutputButStaysIsStillBounded) {
  auto r = runChild("/bin/sh", {"-c", "exec >/dev/null 2>&1; sleep 60"}, {}, 300);
  EXPECT_TRUE(r.timedOut);
}

}  // namespace
}  // namespace nccl_roce::testing

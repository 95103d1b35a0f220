#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>

#include "common/env.h"
#include "common/log.h"
#include "tests/support/capturing_logger.h"

namespace nccl_roce {
namespace {

TEST(MapEnvironment, DistinguishesUnsetFromEmpty) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_IB_HCA", ""}});
  ASSERT_TRUE(env.get("NCCL_IB_HCA").has_value());
  EXPECT_EQ(*env.get("NCCL_IB_HCA"), "");
  EXPECT_FALSE(env.get("NCCL_IB_GID_INDEX").has_value());
}

TEST(ProcessEnvironment, ReadsTheRealEnvironment) {
  ::setenv("NCCL_ROCE_TEST_VARIABLE", "x", 1);
  EXPECT_EQ(processEnvironment().get("NCCL_ROCE_TEST_VARIABLE"), "x");
  ::unsetenv("NCCL_ROCE_TEST_VARIABLE");
  EXPECT_FALSE(processEnvironment().get("NCCL_ROCE_TEST_VARIABLE").has_value());
  EXPECT_FALSE(processEnvironment().isPrivileged()) << "tests do not run setuid";
}

TEST(Logf, FormatsAndPreservesErrno) {
  testing::CapturingLogger logger;
  errno = EINVAL;
  NCCL_ROCE_WARN(logger, kLogInit, "device %s port %d: %s", "mlx5_0", 1, std::string(300, 'x').c_str());
  EXPECT_EQ(errno, EINVAL);
  ASSERT_EQ(logger.count(LogLevel::kWarn), 1u);
  EXPECT_EQ(logger.lines()[0].message, "device mlx5_0 port 1: " + std::string(300, 'x'));
  EXPECT_EQ(logger.lines()[0].subsystem, kLogInit);
}

// The logger wherever none was given: one instance, every level and subsystem accepted without a throw, errno kept,
// and nothing written anywhere (a library inside a serving process must not print on its own).
TEST(Logf, NullLoggerAcceptsEverything) {
  EXPECT_EQ(&nullLogger(), &nullLogger());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  errno = ENOENT;
  for (LogLevel level : {LogLevel::kWarn, LogLevel::kInfo, LogLevel::kTrace}) {
    for (unsigned long subsystem :
         std::initializer_list<unsigned long>{kLogInit, kLogNet, kLogTuning, kLogEnv, kLogProfile, ~0ul}) {
      EXPECT_NO_THROW(logf(nullLogger(), level, subsystem, __FILE__, __LINE__, "%s %d %p",
                           std::string(100000, 'x').c_str(), -1, static_cast<void*>(nullptr)));
      EXPECT_NO_THROW(nullLogger().log(level, subsystem, nullptr, 0, ""));
    }
  }
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace nccl_roce

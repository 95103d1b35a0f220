// Our env plugin inside a real NCCL (the machine's libnccl.so.2; 2.28.9 here), driven through
// ncclGetUniqueId, which loads the env plugin and reads bootstrap settings without a GPU. Skips, saying why,
// where no libnccl.so.2 is installed (CI images without CUDA).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string libnccl() {
  const char* forced = std::getenv("NCCL_ROCE_TEST_LIBNCCL");
  if (forced != nullptr && *forced != '\0') return ::access(forced, R_OK) == 0 ? forced : "";
  for (const char* candidate : {"/usr/local/cuda/lib/libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
                                "/usr/lib/x86_64-linux-gnu/libnccl.so.2"}) {
    if (::access(candidate, R_OK) == 0) return candidate;
  }
  return "";
}

class RealNccl : public ::testing::Test {
 protected:
  void SetUp() override {
    library_ = libnccl();
    if (library_.empty())
      GTEST_SKIP() << "no libnccl.so.2 on this machine (set NCCL_ROCE_TEST_LIBNCCL to point at one)";
  }
  // Runs the stand-in application with a clean NCCL environment plus `env`; NCCL logs to stdout.
  CommandResult run(const std::string& env) {
    return runCommand(
        "env -u NCCL_SOCKET_IFNAME -u NCCL_IB_HCA -u NCCL_ROCE_POLICY -u NCCL_ENV_PLUGIN NCCL_DEBUG=INFO " + env + " " +
        NCCL_ROCE_GET_UNIQUE_ID + " " + library_ + " 2>&1");
  }
  std::string pluginDir() const { return NCCL_ROCE_PLUGIN_DIR; }
  std::string library_;
};

TEST_F(RealNccl, LoadsOurEnvPluginByNameAndPassesVariablesThrough) {
  auto result = run("LD_LIBRARY_PATH=" + pluginDir() + " NCCL_ENV_PLUGIN=roce NCCL_SOCKET_IFNAME=lo");
  EXPECT_EQ(result.exitCode, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("ENV/Plugin: Using nccl-roce"));
  EXPECT_THAT(result.out, HasSubstr("Successfully loaded external env plugin " + pluginDir() + "/libnccl-env-roce.so"));
  EXPECT_THAT(result.out, HasSubstr("NCCL_SOCKET_IFNAME set by environment to lo"));
  EXPECT_THAT(result.out, HasSubstr("Bootstrap: Using lo:"));
}

TEST_F(RealNccl, ValuesOnlyThePluginKnowsReachNccl) {
  TempDir dir;
  std::string policy =
      dir.writeFile("p.toml", "[policy]\nname = \"bootstrap-on-lo\"\n[env]\nNCCL_SOCKET_IFNAME = \"lo\"\n");
  auto result = run("NCCL_ENV_PLUGIN=" + pluginDir() + "/libnccl-roce.so NCCL_ROCE_POLICY=" + policy);
  EXPECT_EQ(result.exitCode, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("NCCL_SOCKET_IFNAME set by environment to lo")) << "served by our plugin";
  EXPECT_THAT(result.out, HasSubstr("Bootstrap: Using lo:"));
}

TEST_F(RealNccl, TheUserStillWins) {
  TempDir dir;
  std::string policy =
      dir.writeFile("p.toml", "[policy]\nname = \"p\"\n[env]\nNCCL_SOCKET_IFNAME = \"nonexistent0\"\n");
  auto result =
      run("NCCL_ENV_PLUGIN=" + pluginDir() + "/libnccl-roce.so NCCL_ROCE_POLICY=" + policy + " NCCL_SOCKET_IFNAME=lo");
  EXPECT_EQ(result.exitCode, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("NCCL_SOCKET_IFNAME set by environment to lo"));
  EXPECT_THAT(result.out, Not(HasSubstr("nonexistent0")));
}

TEST_F(RealNccl, ABrokenPolicyOrUnreadableSysfsNeverBreaksNccl) {
  TempDir dir;
  std::string policy = dir.writeFile("broken.toml", "[policy\n");
  auto result = run("NCCL_ENV_PLUGIN=" + pluginDir() + "/libnccl-roce.so NCCL_ROCE_POLICY=" + policy +
                    " NCCL_ROCE_SYSFS_ROOT=" + dir.join("missing") + " NCCL_SOCKET_IFNAME=lo");
  EXPECT_EQ(result.exitCode, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("Successfully loaded external env plugin"));
  EXPECT_THAT(result.out, HasSubstr("ncclGetUniqueId returned 0"));
}

}  // namespace
}  // namespace nccl_roce::testing

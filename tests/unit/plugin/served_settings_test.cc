// What the env and net plugins serve on a real resolution: the resolver's settings for the machine under
// NCCL_ROCE_SYSFS_ROOT plus the policy's environment defaults, never a variable the user set.
#include "plugin/served_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugin/policy_registry.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/support/capturing_logger.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using ::testing::HasSubstr;

struct Machine {
  Machine() : sys(dir.join("sys")) {
    sys.netdev("net1");
    sys.device("mlx5_0").port(1).roce(400).tableLength(8).linkLocalGids("net1").ipv4Pair(2, "10.0.0.1", "net1");
    env.set("NCCL_ROCE_SYSFS_ROOT", sys.root());
  }
  testing::TempDir dir;
  testing::FakeSysfs sys;
  MapEnvironment env;
  testing::CapturingLogger log;
  PolicyRegistry policies;
};

TEST(ServedSettings, TheResolutionOfTheMachineAndThePolicyDefaults) {
  Machine m;
  m.env.set("NCCL_ROCE_POLICY", m.dir.writeFile("p.toml",
                                                "[policy]\nname = \"p\"\n[env]\nNCCL_IB_QPS_PER_CONNECTION "
                                                "= \"2\"\nNCCL_IB_HCA = \"=mlx5_9:1\"\n"));
  ServedSettings served = resolveServedSettings(m.env, m.log, m.policies);
  EXPECT_TRUE(served.failure.empty()) << served.failure;
  EXPECT_EQ(served.values["NCCL_IB_HCA"], "=mlx5_0:1") << "the resolution wins over a policy default";
  EXPECT_EQ(served.values["NCCL_IB_GID_INDEX"], "3");
  EXPECT_EQ(served.values["NCCL_IB_QPS_PER_CONNECTION"], "2");
  bool mentioned = false;
  for (const auto& line : served.lines)
    mentioned |= line == "NCCL_IB_QPS_PER_CONNECTION=2 (default of the tuner policy)";
  EXPECT_TRUE(mentioned);
}

TEST(ServedSettings, NeverServesWhatTheUserSet) {
  Machine m;
  m.env.set("NCCL_IB_GID_INDEX", "5");
  ServedSettings served = resolveServedSettings(m.env, m.log, m.policies);
  EXPECT_EQ(served.values.count("NCCL_IB_GID_INDEX"), 0u);
  EXPECT_EQ(served.values["NCCL_IB_HCA"], "=mlx5_0:1");
}

// NVSHMEM and UCX read their variables at their own init, before or after NCCL's: setting them from inside
// NCCL (the net plugin's setenv on older NCCL) would make their devices depend on init order.
TEST(ServedSettings, OnlyNcclsOwnVariablesAreServed) {
  Machine m;
  ServedSettings served = resolveServedSettings(m.env, m.log, m.policies);
  ASSERT_TRUE(served.failure.empty()) << served.failure;
  EXPECT_EQ(served.values["NCCL_IB_HCA"], "=mlx5_0:1");
  for (const auto& [name, value] : served.values) EXPECT_EQ(name.rfind("NCCL_", 0), 0u) << name << "=" << value;
  for (const auto& line : served.lines) {
    EXPECT_THAT(line, ::testing::Not(HasSubstr("NVSHMEM_"))) << line;
    EXPECT_THAT(line, ::testing::Not(HasSubstr("UCX_"))) << line;
  }
}

TEST(ServedSettings, AnUnusableMachineIsAFailureButPolicyDefaultsStillApply) {
  testing::TempDir dir;
  MapEnvironment env;
  env.set("NCCL_ROCE_SYSFS_ROOT", dir.path());
  env.set("NCCL_ROCE_POLICY", dir.writeFile("q.toml", "[policy]\nname = \"q\"\n[env]\nNCCL_SOCKET_IFNAME = \"lo\"\n"));
  testing::CapturingLogger log;
  PolicyRegistry policies;
  ServedSettings served = resolveServedSettings(env, log, policies);
  EXPECT_THAT(served.failure, HasSubstr("class/infiniband does not exist"));
  EXPECT_EQ(served.values.size(), 1u);
  EXPECT_EQ(served.values["NCCL_SOCKET_IFNAME"], "lo");
}

}  // namespace
}  // namespace nccl_roce::plugin

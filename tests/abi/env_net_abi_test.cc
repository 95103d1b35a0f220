// The env and net tables of the built .so, driven as NCCL drives them. Each test opens its own copy of the
// library (as separate processes would), so process-wide state starts fresh.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "plugin/nccl/env_v1.h"
#include "plugin/nccl/env_v2.h"
#include "plugin/nccl/net_v12.h"
#include "plugin/nccl/net_v6.h"
#include "plugin/nccl/net_v9.h"
#include "tests/abi/plugin_library.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

// A pod with one RoCE rail, reachable through NCCL_ROCE_SYSFS_ROOT.
struct OneRailPod {
  OneRailPod() : sys(dir.join("sys")), root("NCCL_ROCE_SYSFS_ROOT", sys.root()) {
    sys.netdev("net1");
    sys.device("mlx5_4").port(1).roce(400).tableLength(8).linkLocalGids("net1", 4).ipv4Pair(6, "10.1.2.3", "net1");
    ::unsetenv("NCCL_IB_HCA");
    ::unsetenv("NCCL_IB_GID_INDEX");
  }
  TempDir dir;
  FakeSysfs sys;
  ScopedEnv root;
};

TEST(EnvAbi, V2ServesTheResolutionAndPassesThroughTheRest) {
  OneRailPod pod;
  ScopedEnv passthrough("NCCL_SOCKET_IFNAME", "lo");
  PluginLibrary lib = PluginLibrary::copy(pod.dir.path(), "env.so");
  const auto* env = lib.table<ncclEnv_v2_t>("ncclEnvPlugin_v2");
  ASSERT_NE(env, nullptr);
  clearCapturedNcclLog();
  ASSERT_EQ(env->init(2, 30, 7, "", captureNcclLog), ncclSuccess);
  EXPECT_STREQ(env->getEnv("NCCL_IB_HCA"), "=mlx5_4:1");
  EXPECT_STREQ(env->getEnv("NCCL_IB_GID_INDEX"), "7");
  EXPECT_STREQ(env->getEnv("NCCL_SOCKET_IFNAME"), "lo");
  EXPECT_EQ(env->getEnv("NCCL_ROCE_TEST_UNSET_VARIABLE"), nullptr);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "NCCL-RoCE: env: serving"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "mlx5_4:1 active RoCE port; RoCE v2 GID 7"), 1u);
  EXPECT_EQ(getenv("NCCL_IB_HCA"), nullptr) << "the env plugin never touches the process environment";
  EXPECT_EQ(env->finalize(), ncclSuccess);
}

TEST(EnvAbi, PointersStayValidWhileManyThreadsRead) {
  OneRailPod pod;
  PluginLibrary lib = PluginLibrary::copy(pod.dir.path(), "env.so");
  const auto* env = lib.table<ncclEnv_v1_t>("ncclEnvPlugin_v1");
  ASSERT_EQ(env->init(2, 28, 9, ""), ncclSuccess);
  const char* first = env->getEnv("NCCL_IB_HCA");
  std::vector<std::thread> threads;
  std::vector<int> bad(16, 0);
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) {
        const char* value = env->getEnv(i % 2 ? "NCCL_IB_HCA" : "NCCL_IB_GID_INDEX");
        if (value == nullptr) ++bad[static_cast<size_t>(t)];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int b : bad) EXPECT_EQ(b, 0);
  EXPECT_STREQ(first, "=mlx5_4:1") << "still valid after 80,000 reads from 16 threads";
  env->finalize();
}

TEST(NetAbi, SetsTheEnvironmentForNcclsIbTransportAndReportsNoDevices) {
  OneRailPod pod;
  ScopedEnv userIndex("NCCL_IB_GID_INDEX", "3");
  PluginLibrary lib = PluginLibrary::copy(pod.dir.path(), "net.so");
  const auto* net = lib.table<ncclNet_v12_t>("ncclNetPlugin_v12");
  ASSERT_NE(net, nullptr);
  clearCapturedNcclLog();
  void* ctx = nullptr;
  ncclNetCommConfig_v12_t config{-1};
  ASSERT_EQ(net->init(&ctx, 42, &config, captureNcclLog, nullptr), ncclSuccess);
  int ndev = -1;
  ASSERT_EQ(net->devices(&ndev), ncclSuccess);
  EXPECT_EQ(ndev, 0);
  EXPECT_STREQ(getenv("NCCL_IB_HCA"), "=mlx5_4:1");
  EXPECT_STREQ(getenv("NCCL_IB_GID_INDEX"), "3") << "the user's value is never overwritten";
  for (const char* name : {"NVSHMEM_HCA_LIST", "NVSHMEM_IB_GID_INDEX", "UCX_NET_DEVICES", "UCX_IB_GID_INDEX"}) {
    EXPECT_EQ(getenv(name), nullptr) << name
                                     << ": NVSHMEM and UCX may have initialised already; left to `nccl-roce env`";
  }
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "NCCL's own IB transport"), 1u);
  ASSERT_EQ(net->init(&ctx, 43, &config, captureNcclLog, nullptr), ncclSuccess);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "NCCL's own IB transport"), 1u) << "applied once per process";
  EXPECT_EQ(net->finalize(ctx), ncclSuccess);
  void* comm = nullptr;
  EXPECT_EQ(net->listen(ctx, 0, nullptr, &comm), ncclInternalError) << "never called by NCCL with zero devices";
  for (const char* name :
       {"NCCL_IB_HCA", "NVSHMEM_HCA_LIST", "NVSHMEM_IB_GID_INDEX", "UCX_NET_DEVICES", "UCX_IB_GID_INDEX"}) {
    ::unsetenv(name);
  }
}

TEST(NetAbi, OlderTablesInitToo) {
  TempDir dir;
  ScopedEnv root("NCCL_ROCE_SYSFS_ROOT", dir.path());  // no RDMA devices: resolution fails
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "net.so");
  clearCapturedNcclLog();
  const auto* v6 = lib.table<ncclNet_v6_t>("ncclNetPlugin_v6");
  const auto* v9 = lib.table<ncclNet_v9_t>("ncclNetPlugin_v9");
  ASSERT_EQ(v6->init(captureNcclLog), ncclSuccess);
  ASSERT_EQ(v9->init(captureNcclLog), ncclSuccess);
  int ndev = -1;
  v6->devices(&ndev);
  EXPECT_EQ(ndev, 0);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "environment unchanged"), 1u) << "one WARN line, once";
  EXPECT_EQ(getenv("NCCL_IB_HCA"), nullptr);
}

}  // namespace
}  // namespace nccl_roce::testing

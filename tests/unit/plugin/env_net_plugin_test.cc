// The env and net plugins as NCCL uses them, with the machine resolution replaced by a stand-in: what is
// served, what the user keeps, what is written into the environment and when, what is logged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "plugin/env_plugin.h"
#include "plugin/net_plugin.h"
#include "tests/support/capturing_logger.h"
#include "tests/support/nccl_log_capture.h"

namespace nccl_roce::plugin {
namespace {

using testing::captureNcclLog;
using testing::countCapturedNcclLog;
using ::testing::HasSubstr;

// A resolution that found two rails, counting how often it ran.
struct StandInResolver {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::string failure;
  SettingsResolver get() const {
    auto counter = calls;
    std::string why = failure;
    return [counter, why](const Environment& env, Logger&) {
      ++*counter;
      ServedSettings s;
      if (!why.empty()) {
        s.failure = why;
        return s;
      }
      for (auto [name, value] :
           std::map<std::string, std::string>{{"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"}, {"NCCL_IB_GID_INDEX", "3"}}) {
        if (!env.get(name)) s.values[name] = value;
      }
      s.lines = {"mlx5_0:1 active RoCE port; RoCE v2 GID 3 (10.0.0.1 on net1), 400 Gb/s"};
      return s;
    };
  }
};

TEST(EnvPlugin, ServesResolvedSettingsAndPassesEverythingElseThrough) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_SOCKET_IFNAME", "eth0"}});
  StandInResolver resolver;
  EnvPlugin plugin(env, resolver.get());
  testing::clearCapturedNcclLog();
  plugin.init(2, 30, 7, "", captureNcclLog);
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_GID_INDEX"), "3");
  EXPECT_STREQ(plugin.getEnv("NCCL_SOCKET_IFNAME"), "eth0") << "passed through";
  EXPECT_EQ(plugin.getEnv("NCCL_DEBUG_FILE"), nullptr) << "unset stays unset";
  EXPECT_EQ(plugin.getEnv(nullptr), nullptr);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "env: serving 2 resolved variable(s) to NCCL 2.30.7"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "env: mlx5_0:1 active RoCE port"), 1u);
}

TEST(EnvPlugin, AVariableTheUserSetAlwaysWins) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_IB_HCA", "mlx5_3"}});
  EnvPlugin plugin(env, StandInResolver().get());
  plugin.init(2, 28, 9, "", nullptr);
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_HCA"), "mlx5_3");
  env.set("NCCL_IB_GID_INDEX", "5");  // set later (e.g. by NCCL's own config file): still the user's
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_GID_INDEX"), "5");
}

TEST(EnvPlugin, ReturnedPointersStayValidUntilFinalize) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_NTHREADS", "256"}});
  EnvPlugin plugin(env, StandInResolver().get());
  plugin.init(2, 28, 9, "", nullptr);
  const char* first = plugin.getEnv("NCCL_NTHREADS");
  EXPECT_EQ(plugin.getEnv("NCCL_NTHREADS"), first) << "same value, same pointer";
  env.set("NCCL_NTHREADS", "512");
  const char* second = plugin.getEnv("NCCL_NTHREADS");
  EXPECT_STREQ(second, "512");
  EXPECT_STREQ(first, "256") << "another thread may still be reading the old value";
  plugin.finalize();
}

TEST(EnvPlugin, ResolvesOnceEvenWhenInitRacesAndServesManyReaders) {
  MapEnvironment env;
  StandInResolver resolver;
  SettingsResolver slow = [inner = resolver.get()](const Environment& e, Logger& log) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a real resolution reads sysfs for ms
    return inner(e, log);
  };
  EnvPlugin plugin(env, slow);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      plugin.init(2, 28, 9, "", nullptr);
      for (int i = 0; i < 2000; ++i) {
        const char* hca = plugin.getEnv("NCCL_IB_HCA");
        if (hca == nullptr || std::string(hca) != "=mlx5_0:1,mlx5_1:1") ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(*resolver.calls, 1);
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(plugin.serving());
}

TEST(EnvPlugin, AFailedResolutionServesNothingAndWarnsOnce) {
  MapEnvironment env;
  StandInResolver resolver;
  resolver.failure = "no RDMA devices: /sys/class/infiniband does not exist";
  EnvPlugin plugin(env, resolver.get());
  testing::clearCapturedNcclLog();
  plugin.init(2, 30, 7, "", captureNcclLog);
  EXPECT_EQ(plugin.getEnv("NCCL_IB_HCA"), nullptr);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "env: no RDMA devices"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 1u);
}

TEST(EnvPlugin, WithoutALoggerTheLinesWaitForTheFirstPluginThatHasOne) {
  MapEnvironment env;
  EnvPlugin plugin(env, StandInResolver().get());
  plugin.init(2, 28, 9, "", nullptr);  // env v1: no logger
  testing::CapturingLogger later;
  plugin.flushPendingLog(later);
  EXPECT_THAT(later.text(LogLevel::kInfo), HasSubstr("env: serving 2 resolved variable(s) to NCCL 2.28.9"));
  testing::CapturingLogger again;
  plugin.flushPendingLog(again);
  EXPECT_EQ(again.lines().size(), 0u) << "written once";
}

TEST(EnvPlugin, AThrowingResolverIsContained) {
  MapEnvironment env;
  EnvPlugin plugin(env, [](const Environment&, Logger&) -> ServedSettings { throw std::runtime_error("boom"); });
  testing::clearCapturedNcclLog();
  plugin.init(2, 30, 7, "", captureNcclLog);
  EXPECT_EQ(plugin.getEnv("NCCL_IB_HCA"), nullptr);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "resolution failed"), 1u);
}

struct FakeSetenv {
  MapEnvironment* env;
  std::vector<std::string> calls;
  NetPlugin::SetEnv get() {
    return [this](const char* name, const char* value) {
      calls.push_back(name);
      if (!env->get(name)) env->set(name, value);  // overwrite = 0
      return 0;
    };
  }
};

TEST(NetPlugin, AppliesTheResolutionOnceForVariablesTheUserDidNotSet) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_IB_GID_INDEX", "7"}});
  StandInResolver resolver;
  FakeSetenv setenv{&env, {}};
  NetPlugin net(env, resolver.get(), nullptr, setenv.get());
  testing::clearCapturedNcclLog();
  for (int communicator = 0; communicator < 3; ++communicator) EXPECT_EQ(net.init(captureNcclLog), ncclSuccess);
  EXPECT_EQ(*resolver.calls, 1);
  EXPECT_EQ(setenv.calls, std::vector<std::string>{"NCCL_IB_HCA"});
  EXPECT_EQ(env.get("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(env.get("NCCL_IB_GID_INDEX"), "7");
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "net: set 1 variable(s) for NCCL's own IB transport"), 1u);
  int ndev = -1;
  EXPECT_EQ(NetPlugin::devices(&ndev), ncclSuccess);
  EXPECT_EQ(ndev, 0) << "NCCL disables this plugin and uses its internal IB transport";
  EXPECT_EQ(NetPlugin::devices(nullptr), ncclSuccess);
}

TEST(NetPlugin, StepsAsideWhenTheEnvPluginServesThisProcess) {
  MapEnvironment env;
  StandInResolver resolver;
  EnvPlugin envPlugin(env, resolver.get());
  envPlugin.init(2, 28, 7, "", nullptr);  // env v1: its lines wait for a logger
  FakeSetenv setenv{&env, {}};
  NetPlugin net(env, resolver.get(), &envPlugin, setenv.get());
  testing::clearCapturedNcclLog();
  net.init(captureNcclLog);
  EXPECT_EQ(*resolver.calls, 1) << "resolved once, by the env plugin";
  EXPECT_TRUE(setenv.calls.empty());
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "net: the nccl-roce env plugin serves the resolved settings"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_INFO, "env: serving 2 resolved variable(s) to NCCL 2.28.7"), 1u)
      << "the env plugin's lines, written through the net plugin's logger";
}

TEST(NetPlugin, AFailedResolutionChangesNothingAndSaysSo) {
  MapEnvironment env;
  StandInResolver resolver;
  resolver.failure = "no usable RDMA port: none of 4 device port(s) qualified (see each port's reason)";
  FakeSetenv setenv{&env, {}};
  NetPlugin net(env, resolver.get(), nullptr, setenv.get());
  testing::clearCapturedNcclLog();
  EXPECT_EQ(net.init(captureNcclLog), ncclSuccess);
  EXPECT_TRUE(setenv.calls.empty());
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "environment unchanged, NCCL's defaults apply"), 1u);
}

}  // namespace
}  // namespace nccl_roce::plugin

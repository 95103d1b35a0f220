// A device whose verbs calls block (firmware stuck in a command, a driver reset) must not hold NCCL's init:
// env init returns at its deadline, serves the process environment unchanged and says so in one WARN line; the
// net plugin leaves the environment alone. The late resolution, released afterwards, changes nothing and
// writes nothing to NCCL's logger. The resolution is the real one (gid::resolve) over a fake machine whose
// substituted verbs table blocks in ibv_open_device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "gid/resolve.h"
#include "plugin/bounded_resolution.h"
#include "plugin/env_plugin.h"
#include "plugin/net_plugin.h"
#include "tests/fixtures/fake_sysfs.h"
#include "tests/fixtures/fake_verbs.h"
#include "tests/fixtures/resolver_world.h"
#include "tests/support/capturing_logger.h"
#include "tests/support/nccl_log_capture.h"

namespace nccl_roce::plugin {
namespace {

using namespace std::chrono_literals;
using testing::captureNcclLog;
using testing::countCapturedNcclLog;
using testing::FakeVerbs;

constexpr auto kDeadline = 300ms;

// ibv_open_device that blocks until the test opens the gate. The table holds plain function pointers, so the
// gate and the table it forwards to are this file's.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool entered = false;  // a caller is blocked inside
  bool open = false;
};
Gate gate;
gid::IbvFunctions forwardTo;

ibv_context* blockingOpenDevice(ibv_device* device) {
  {
    std::unique_lock<std::mutex> lock(gate.mutex);
    gate.entered = true;
    gate.changed.notify_all();
    gate.changed.wait(lock, [] { return gate.open; });
  }
  return forwardTo.openDevice(device);
}

class StalledDevice : public ::testing::Test {
 protected:
  StalledDevice() {
    world.sys.netdev("net1");
    world.address("net1", "10.0.0.1/24");
    world.sys.device("mlx5_0").port(1).roce(400).tableLength(8).linkLocalGids("net1").ipv4Pair(2, "10.0.0.1", "net1");
    auto& device = verbs.device("mlx5_0");
    device.ports[1].tableLength = 8;
    device.ports[1].gids[2] = {testing::ipv4Gid("10.0.0.1"), IBV_GID_TYPE_ROCE_V1};
    device.ports[1].gids[3] = {testing::ipv4Gid("10.0.0.1"), IBV_GID_TYPE_ROCE_V2};
    forwardTo = verbs.table(FakeVerbs::Query::kGidTable);
    blocking = forwardTo;
    blocking.openDevice = blockingOpenDevice;
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.entered = gate.open = false;
  }

  // Whatever happened, the blocked worker is let go and has finished before the fixtures it reads are gone.
  ~StalledDevice() override {
    release();
    std::unique_lock<std::mutex> lock(gate.mutex);
    gate.changed.wait_for(lock, 10s, [this] { return finished.load(); });
  }

  // The real resolution over the fake machine, with the blocking verbs table.
  SettingsResolver resolver() {
    return [this](const Environment& env, Logger&) {
      struct Finished {  // declared first, so it is destroyed last: nothing of this test is touched after
        StalledDevice* test;
        ~Finished() {
          std::lock_guard<std::mutex> lock(gate.mutex);
          test->finished = true;
          gate.changed.notify_all();
        }
      } finishedOnReturn{this};
      gid::SysfsReader reader(world.sys.root());
      gid::FixedAddressSource addresses(world.addresses);
      gid::ResolverSources sources;
      sources.sysfs = &reader;
      sources.addresses = &addresses;
      sources.addressSourceName = "test";
      sources.verbs = &blocking;
      sources.verbsSourceName = "blocking table";
      gid::Resolution resolution = gid::resolve(sources, env);
      ServedSettings served;
      for (const auto& setting : resolution.env) served.values[setting.name] = setting.value;
      return served;
    };
  }

  bool workerBlocked() {
    std::unique_lock<std::mutex> lock(gate.mutex);
    return gate.changed.wait_for(lock, 10s, [] { return gate.entered; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.open = true;
    gate.changed.notify_all();
  }
  bool workerFinished() {
    std::unique_lock<std::mutex> lock(gate.mutex);
    return gate.changed.wait_for(lock, 10s, [this] { return finished.load(); });
  }

  testing::ResolverWorld world;
  FakeVerbs verbs;
  gid::IbvFunctions blocking;
  std::atomic<bool> finished{false};
};

TEST_F(StalledDevice, TheUnblockedMachineResolves) {
  release();  // the same machine and table, with nothing stuck: the stand-in resolution is a real one
  MapEnvironment env;
  EnvPlugin plugin(env, resolver(), kDeadline);
  plugin.init(2, 30, 7, "", nullptr);
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_STREQ(plugin.getEnv("NCCL_IB_GID_INDEX"), "3");
}

TEST_F(StalledDevice, EnvInitReturnsAtItsDeadlineAndServesTheEnvironmentUnchanged) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_SOCKET_IFNAME", "eth0"}});
  EnvPlugin plugin(env, resolver(), kDeadline);
  testing::clearCapturedNcclLog();
  auto start = std::chrono::steady_clock::now();
  plugin.init(2, 30, 7, "", captureNcclLog);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, kDeadline);
  EXPECT_LT(took, kDeadline + 5s) << "bounded by the deadline, not by the stuck device";
  ASSERT_TRUE(workerBlocked()) << "the resolution is stuck inside ibv_open_device";
  EXPECT_EQ(plugin.getEnv("NCCL_IB_HCA"), nullptr) << "nothing served";
  EXPECT_STREQ(plugin.getEnv("NCCL_SOCKET_IFNAME"), "eth0") << "the environment passes through unchanged";
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "env: resolution did not finish within 300 ms"), 1u);

  size_t linesBefore = testing::capturedNcclLog().size();
  release();
  ASSERT_TRUE(workerFinished());
  EXPECT_EQ(plugin.getEnv("NCCL_IB_HCA"), nullptr) << "a late result is never served: NCCL may have read already";
  EXPECT_EQ(testing::capturedNcclLog().size(), linesBefore) << "the late worker writes nothing to NCCL's logger";
  plugin.init(2, 30, 7, "", captureNcclLog);
  EXPECT_EQ(plugin.getEnv("NCCL_IB_HCA"), nullptr) << "init resolves once per process";
}

TEST_F(StalledDevice, TheNetPluginLeavesTheEnvironmentAlone) {
  MapEnvironment env;
  std::vector<std::string> set;
  NetPlugin net(
      env, resolver(), nullptr,
      [&set](const char* name, const char*) {
        set.push_back(name);
        return 0;
      },
      kDeadline);
  testing::clearCapturedNcclLog();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(net.init(captureNcclLog), ncclSuccess);
  EXPECT_LT(std::chrono::steady_clock::now() - start, kDeadline + 5s);
  ASSERT_TRUE(workerBlocked());
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "net: resolution did not finish within 300 ms"), 1u);
  release();
  ASSERT_TRUE(workerFinished());
  EXPECT_TRUE(set.empty()) << "the late result is dropped";
}

// NCCL may dlclose the library as soon as init returns: a worker that finished on time must be gone by then, not
// still running our code on its way out. Its thread-exit work is made slow here (a thread_local whose destructor
// sleeps), so a worker left behind would still be listed in /proc/self/task when the caller returns.
struct SlowThreadExit {
  ~SlowThreadExit() { std::this_thread::sleep_for(200ms); }
  void touch() {}
};

TEST(BoundedResolution, AResolutionOnTimeLeavesNoThreadRunning) {
  std::atomic<long> workerTid{0};
  SettingsResolver resolver = [&workerTid](const Environment&, Logger&) {
    static thread_local SlowThreadExit slowExit;
    slowExit.touch();
    workerTid = ::syscall(SYS_gettid);
    return ServedSettings{};
  };
  MapEnvironment env;
  testing::CapturingLogger log;
  ServedSettings served = resolveWithin(resolver, env, 10s, log);
  EXPECT_TRUE(served.failure.empty()) << served.failure;
  ASSERT_NE(workerTid.load(), 0);
  EXPECT_NE(::access(("/proc/self/task/" + std::to_string(workerTid.load())).c_str(), F_OK), 0)
      << "the worker thread is still alive after resolveWithin returned";
}

}  // namespace
}  // namespace nccl_roce::plugin

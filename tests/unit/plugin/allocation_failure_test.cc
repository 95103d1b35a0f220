// Allocation failure, injected: every allocation the plugin entry points make fails in turn (operator new
// throws, or returns null for nothrow). NCCL must still get success and its own behaviour, never a crash.
// Not covered: parsing a policy file. toml++ 3.3 allocates inside noexcept functions (its UTF-8 reader), so out
// of memory there terminates the process whatever the caller does; the policy is therefore parsed once per
// process, before any communicator, and these tests start from a loaded policy (docs/reliability.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "common/env.h"
#include "plugin/env_plugin.h"
#include "plugin/tuner_plugin.h"

// The replacements below pair operator new with malloc and operator delete with free, which is correct; GCC's
// -Wmismatched-new-delete cannot see through the replacement once inlined (sanitizer builds inline more).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
thread_local long allocationsUntilFailure = -1;  // -1: never fail

bool shouldFail() {
  if (allocationsUntilFailure < 0) return false;
  if (allocationsUntilFailure == 0) return true;
  --allocationsUntilFailure;
  return false;
}
}  // namespace

void* operator new(std::size_t size) {
  if (shouldFail()) throw std::bad_alloc();
  void* p = std::malloc(size ? size : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (shouldFail()) return nullptr;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace nccl_roce::plugin {
namespace {

class FailingAllocations {
 public:
  explicit FailingAllocations(long after) { allocationsUntilFailure = after; }
  ~FailingAllocations() { allocationsUntilFailure = -1; }
};

TEST(AllocationFailure, TunerEntryPointsAlwaysSucceed) {
  ::setenv("NCCL_ROCE_POLICY", "inference", 1);
  void* warm = nullptr;
  tunerInit(&warm, 1, 16, 2, nullptr);  // loads the policy (once per process), outside the failure window
  tunerFinalize(warm);
  float table[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  int passthrough = 0, decided = 0;
  for (long after = 0; after < 400; ++after) {
    void* context = reinterpret_cast<void*>(1);
    int nChannels = 0;
    ncclResult_t init, call, finalize;
    {
      FailingAllocations failing(after);
      init = tunerInit(&context, 7, 16, 2, nullptr);
      call = tunerGetCollInfo(context, ncclFuncAllReduce, 4096, 1, reinterpret_cast<float**>(table), 7, 3, 0, &nChannels);
      finalize = tunerFinalize(context);
    }
    ASSERT_EQ(init, ncclSuccess) << "allocation " << after;
    ASSERT_EQ(call, ncclSuccess) << "allocation " << after;
    ASSERT_EQ(finalize, ncclSuccess) << "allocation " << after;
    bool marked = false;
    for (auto& row : table) {
      for (float& cell : row) {
        ASSERT_TRUE(cell == 0.0f || cell == -1 || cell >= 18) << "never an unavailable entry";
        if (cell == 0.0f) {
          marked = true;
          cell = 20;
        }
      }
    }
    (marked ? decided : passthrough)++;
  }
  EXPECT_GT(passthrough, 0) << "early failures must have been injected and survived";
  EXPECT_GT(decided, 0) << "once allocations succeed the policy decides again";
  ::unsetenv("NCCL_ROCE_POLICY");
}

TEST(AllocationFailure, EnvPluginPassesNothingRatherThanCrashing) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_SOCKET_IFNAME", "lo"}});
  for (long after = 0; after < 200; ++after) {
    EnvPlugin plugin(env, [](const Environment&, Logger&) {
      ServedSettings s;
      s.values["NCCL_IB_HCA"] = "=mlx5_0:1";
      s.lines = {"mlx5_0:1 selected"};
      return s;
    });
    const char* hca;
    const char* socket;
    {
      FailingAllocations failing(after);
      plugin.init(2, 30, 7, "", nullptr);
      hca = plugin.getEnv("NCCL_IB_HCA");
      socket = plugin.getEnv("NCCL_SOCKET_IFNAME");
    }
    if (hca != nullptr) {
      EXPECT_STREQ(hca, "=mlx5_0:1");
    }
    if (socket != nullptr) {
      EXPECT_STREQ(socket, "lo");
    }
  }
}

}  // namespace
}  // namespace nccl_roce::plugin

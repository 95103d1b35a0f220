// Allocation failure, injected: every allocation the plugin entry points make fails in turn (operator new
// throws, or returns null for nothrow). NCCL must still get success and its own behaviour, never a crash, and
// never loses a variable the user set. Not covered, because a library we use allocates inside noexcept
// functions, so out of memory there terminates the process whatever the caller does:
// - parsing a policy file (toml++ 3.3's UTF-8 reader). The policy is parsed once per process, at the first
//   communicator's init (or the env plugin's), and these tests start from a loaded policy (docs/reliability.md);
// - decision statistics (NCCL_ROCE_STATS, off by default): nlohmann::json's destructor allocates (json.hpp 3.11,
//   json_value::destroy), so freeing a document while allocations fail terminates.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <new>
#include <string>

#include "common/env.h"
#include "plugin/env_plugin.h"
#include "plugin/process_context.h"
#include "plugin/profiler_plugin.h"
#include "plugin/tuner_plugin.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

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
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (shouldFail()) return nullptr;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace nccl_roce::plugin {
namespace {

class FailingAllocations {
 public:
  explicit FailingAllocations(long after) { allocationsUntilFailure = after; }
  ~FailingAllocations() { allocationsUntilFailure = -1; }
};

// What NCCL sees of one communicator, allocation `after` failing: init, one call, finalize all succeed, and
// the table holds at most NCCL's own entries or one 0.0 on an available one. Returns whether a rule decided.
bool oneCommunicator(ProcessContext& process, long after) {
  float table[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                       {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  void* context = reinterpret_cast<void*>(1);
  int nChannels = 0;
  ncclResult_t init, call, finalize;
  {
    FailingAllocations failing(after);
    init = tunerInit(process, &context, 7, 16, 2, nullptr);
    call = tunerGetCollInfo(context, ncclFuncAllReduce, 4096, 1, reinterpret_cast<float**>(table), 7, 3, 0, &nChannels);
    finalize = tunerFinalize(context);
  }
  EXPECT_EQ(init, ncclSuccess) << "allocation " << after;
  EXPECT_EQ(call, ncclSuccess) << "allocation " << after;
  EXPECT_EQ(finalize, ncclSuccess) << "allocation " << after;
  bool marked = false;
  for (auto& row : table) {
    for (float cell : row) {
      EXPECT_TRUE(cell == 0.0f || cell == -1 || cell >= 18) << "never an unavailable entry";
      marked |= cell == 0.0f;
    }
  }
  return marked;
}

// First in this file: each test runs in a fresh process, where nothing has built the process context yet.
TEST(AllocationFailure, TheProcessContextIsBuiltInsideTheGuardAndRetried) {
  {
    FailingAllocations failing(0);
    EXPECT_EQ(processContext(), nullptr) << "no context, and no exception towards NCCL";
    void* context = reinterpret_cast<void*>(1);
    EXPECT_EQ(tunerInit(&context, 1, 16, 2, nullptr, true), ncclSuccess);
    EXPECT_EQ(context, nullptr) << "no tuner context: every call leaves NCCL's choice";
  }
  ProcessContext* built = processContext();
  ASSERT_NE(built, nullptr) << "built once memory is there again";
  EXPECT_EQ(processContext(), built);
}

TEST(AllocationFailure, TunerEntryPointsAlwaysSucceed) {
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", "inference"}});
  ProcessContext process(env);
  void* warm = nullptr;
  tunerInit(process, &warm, 1, 16, 2, nullptr);  // loads the policy (once per context), outside the failure window
  tunerFinalize(warm);
  int passthrough = 0, decided = 0;
  for (long after = 0; after < 200; ++after) {
    (oneCommunicator(process, after) ? decided : passthrough)++;
  }
  EXPECT_GT(passthrough, 0) << "early failures must have been injected and survived";
  EXPECT_GT(decided, 0) << "once allocations succeed the policy decides again";
}

// A switchback's first getCollInfo shuffles its first round of turns: that allocates nothing (the schedule's buffers
// are sized at init), so a call made while no allocation can succeed still decides, inside NCCL's noexcept call.
TEST(AllocationFailure, AFirstSwitchbackCallAllocatesNothing) {
  testing::TempDir dir;
  dir.writeFile("ring-ll.toml", "[policy]\nname = \"ring-ll\"\n[[rule]]\nalgorithm = \"ring\"\nprotocol = \"ll\"\n");
  dir.writeFile("tree-ll.toml", "[policy]\nname = \"tree-ll\"\n[[rule]]\nalgorithm = \"tree\"\nprotocol = \"ll\"\n");
  const std::string experiment = dir.writeFile(
      "experiment.toml",
      "[experiment]\nname = \"sb\"\ndesign = \"switchback\"\nblock = 2\n[[experiment.arm]]\nname = \"control\"\n"
      "policy = \"ring-ll.toml\"\nweight = 50\n[[experiment.arm]]\nname = \"candidate\"\npolicy = \"tree-ll.toml\"\n"
      "weight = 50\n");
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_POLICY", experiment}});
  ProcessContext process(env);
  void* context = nullptr;
  ASSERT_EQ(tunerInit(process, &context, 0x5b, 16, 2, nullptr), ncclSuccess);
  ASSERT_NE(context, nullptr);
  int decided = 0;
  for (int call = 0; call < 8; ++call) {
    float table[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                         {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
    int nChannels = 0;
    ncclResult_t result;
    {
      FailingAllocations failing(0);
      result =
          tunerGetCollInfo(context, ncclFuncAllReduce, 4096, 1, reinterpret_cast<float**>(table), 7, 3, 0, &nChannels);
    }
    EXPECT_EQ(result, ncclSuccess);
    decided += table[0][0] == 0.0f || table[1][0] == 0.0f;
  }
  EXPECT_EQ(decided, 8) << "every call decided by its turn's arm, though nothing could be allocated";
  tunerFinalize(context);
}

// Whatever fails inside, NCCL reads what it would read without this plugin: a variable the user set is never
// lost (getEnv falls back to the process environment), and a served value is either right or absent.
TEST(AllocationFailure, EnvPluginKeepsTheUsersValuesWhateverFails) {
  testing::ScopedEnv socket("NCCL_SOCKET_IFNAME", "lo");
  for (long after = 0; after < 200; ++after) {
    EnvPlugin plugin(processEnvironment(), [](const Environment&, Logger&) {
      ServedSettings s;
      s.values["NCCL_IB_HCA"] = "=mlx5_0:1";
      s.lines = {"mlx5_0:1 selected"};
      return s;
    });
    const char* hca;
    const char* socketValue;
    {
      FailingAllocations failing(after);
      plugin.init(2, 30, 7, "", nullptr);
      hca = plugin.getEnv("NCCL_IB_HCA");
      socketValue = plugin.getEnv("NCCL_SOCKET_IFNAME");
    }
    if (hca != nullptr) {
      EXPECT_STREQ(hca, "=mlx5_0:1") << "allocation " << after;
    }
    ASSERT_NE(socketValue, nullptr) << "allocation " << after << ": the user's value was lost";
    EXPECT_STREQ(socketValue, "lo") << "allocation " << after;
  }
}

// A profiler init that fails half-way leaves no tracker behind in the registry: the registry names trackers by
// raw pointer, and a late event's handle must find an empty slot, never the freed tracker.
TEST(AllocationFailure, AProfilerInitThatFailsHalfWayLeavesNoTrackerBehind) {
  testing::TempDir dir;
  MapEnvironment env(std::map<std::string, std::string>{{"NCCL_ROCE_STATS", dir.join("stats")}});
  ProcessContext process(env);
  ProfilerCommunicator comm{0x51a7, 0x51a7, "comm", 2, 16, 0};
  process.policies().active(env);  // the policy labels the timings: loaded outside the failure window (above)
  int timed = 0, untimed = 0;
  for (long after = 0; after < 60; ++after) {
    void* context = nullptr;
    int mask = -1;
    ncclResult_t init;
    {
      FailingAllocations failing(after);
      init = profilerInit(process, &context, &mask, comm, ChannelClock::kGpu, nullptr);
    }
    EXPECT_EQ(init, ncclSuccess) << "allocation " << after;
    int live = 0;
    for (uint32_t i = 0; i < profiler::TrackerRegistry::kSlots; ++i)
      live += process.trackers().with(i, [](profiler::CollectiveTracker&) {}) ? 1 : 0;
    EXPECT_EQ(live, context ? 1 : 0) << "allocation " << after;
    (context ? timed : untimed)++;
    if (context) profilerFinalize(context);
  }
  EXPECT_GT(untimed, 0) << "failures were injected after the tracker was registered";
  EXPECT_GT(timed, 0) << "once allocations succeed, the communicator is timed";
}

}  // namespace
}  // namespace nccl_roce::plugin

// The profiler tables of the built .so, driven as NCCL drives them (src/plugin/profiler.cc and src/enqueue.cc,
// 2.26-2.31.2; v7, the newest, and v6 through the same tests): init with the process-wide activation mask; from 2.28
// the API-level GroupApi and CollApi events on the user's thread when a collective is called; a plan's Group, then its
// Coll events where NCCL hands the plan to its proxy (the user's thread, or CUDA's host-callback thread at every replay
// of a CUDA graph); on NCCL's proxy thread one KernelCh per channel naming the Coll as parent, its GPU stop stamp in
// the KernelChStop state, then stopEvent; finalize writes the statistics file. Stamps are injected, so every duration
// is known.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <type_traits>

#include "plugin/nccl/profiler_v1.h"
#include "plugin/nccl/profiler_v2.h"
#include "plugin/nccl/profiler_v3.h"
#include "plugin/nccl/profiler_v4.h"
#include "plugin/nccl/profiler_v5.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v6.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

constexpr int kTimed = ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh;

nlohmann::json readStatistics(const std::string& prefix) {
  std::ifstream in(prefix + "." + std::to_string(::getpid()) + ".json");
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// One all-reduce of 64 KiB (16384 floats) on Ring/LL over `channels` channels, as a version's descriptor.
template <typename Descr>
Descr allReduce(void* group, int channels) {
  Descr d{};
  d.type = ncclProfileColl;
  d.coll.func = "AllReduce";
  d.coll.count = 16384;
  d.coll.datatype = "ncclFloat32";
  d.coll.algo = "RING";
  d.coll.proto = "LL";
  if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v3_t>) {
    d.parentObj = group;
    d.coll.nMaxChannels = static_cast<uint8_t>(channels);
  } else if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v4_t>) {
    d.parentObj = group;
    d.coll.nChannels = static_cast<uint8_t>(channels);
  } else {
    d.coll.parentGroup = group;
    d.coll.nChannels = static_cast<uint8_t>(channels);
  }
  if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v7_t>) {
    d.coll.userTag = 0xdec0de;  // an application's tag (ncclCollConfig_t): times the same, untagged
    d.coll.kernelVariant = nullptr;
    d.coll.isSymColl = false;
  }
  return d;
}

template <typename Descr>
Descr kernelChannel(void* parent, int channel, uint64_t startNs) {
  Descr d{};
  d.type = ncclProfileKernelCh;
  d.parentObj = parent;
  d.kernelCh.channelId = static_cast<uint8_t>(channel);
  if constexpr (!std::is_same_v<Descr, ncclProfilerEventDescr_v3_t>) d.kernelCh.pTimer = startNs;
  return d;
}

// NCCL's proxy thread: takes collective handles from the user's thread and plays their kernel channels.
template <typename Table, typename Descr, typename Args>
class ProxyThread {
 public:
  ProxyThread(const Table* t, void* ctx, int channels) : t_(t), ctx_(ctx), channels_(channels) {
    thread_ = std::thread([this] { run(); });
  }
  ~ProxyThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back({nullptr, 0, 0, /*last=*/true});
      ready_.notify_one();
    }
    thread_.join();
  }
  // The collective's channels run from startNs to startNs + durationNs (channel c starts c*100 ns later and
  // ends c*100 ns earlier, so the collective's time is the earliest start to the latest stop). A null `coll` is
  // a kernel whose parent NCCL left null (a send or receive).
  void push(void* coll, uint64_t startNs = 0, uint64_t durationNs = 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({coll, startNs, durationNs, false});
    ready_.notify_one();
  }

 private:
  struct Work {
    void* coll;
    uint64_t start, duration;
    bool last;
  };
  void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return !queue_.empty(); });
      Work w = queue_.front();
      queue_.pop_front();
      lock.unlock();
      if (w.last) return;
      for (int c = 0; c < channels_; ++c) {
        Descr d = kernelChannel<Descr>(w.coll, c, w.start + 100u * c);
        void* ch = nullptr;
        t_->startEvent(ctx_, &ch, &d);
        if (ch == nullptr) continue;  // NCCL records no state and no stop for a null handle
        Args args{};
        args.kernelCh.pTimer = w.start + w.duration - 100u * c;
        t_->recordEventState(ch, ncclProfilerKernelChStop, &args);
        t_->stopEvent(ch);
      }
    }
  }
  const Table* t_;
  void* ctx_;
  int channels_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Work> queue_;
  std::thread thread_;
};

template <typename Table>
void* init(const Table* t, int* mask, uint64_t commId) {
  void* ctx = nullptr;
  if constexpr (std::is_same_v<Table, ncclProfiler_v4_t>) {
    EXPECT_EQ(t->init(&ctx, mask, "tp0", commId, 2, 16, 3, captureNcclLog), ncclSuccess);
  } else {
    EXPECT_EQ(t->init(&ctx, commId, mask, "tp0", 2, 16, 3, captureNcclLog), ncclSuccess);
  }
  return ctx;
}

// 200 all-reduces of 40 us each (GPU stamps), started on this thread, channels played on the proxy thread.
template <typename Table, typename Descr, typename Args>
void timesEveryCollectiveOnTheGpu(const char* symbol) {
  SCOPED_TRACE(symbol);
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* t = lib.table<Table>(symbol);
  ASSERT_NE(t, nullptr);
  EXPECT_STREQ(t->name, "nccl-roce");
  int mask = -1;
  void* ctx = init(t, &mask, 0x1f2e3d4c5b6a7980ull);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(mask, kTimed);
  {
    ProxyThread<Table, Descr, Args> proxy(t, ctx, 2);
    for (int i = 0; i < 200; ++i) {
      Descr g{};
      g.type = ncclProfileGroup;
      void* group = nullptr;
      t->startEvent(ctx, &group, &g);
      Descr c = allReduce<Descr>(group, 2);
      void* coll = nullptr;
      t->startEvent(ctx, &coll, &c);
      ASSERT_NE(coll, nullptr);
      t->stopEvent(coll);
      t->stopEvent(group);
      proxy.push(coll, 1'000'000'000ull + i * 100'000ull, 40'000);
    }
  }
  EXPECT_EQ(t->finalize(ctx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  ASSERT_TRUE(file.is_object());
  EXPECT_EQ(file["schema"], "nccl-roce.stats/4");
  const nlohmann::json& comm = file["communicators"][0];
  EXPECT_EQ(comm["rank"], 3);
  const nlohmann::json& key = comm["timing"]["collectives"][0];
  EXPECT_EQ(key["collective"], "AllReduce");
  EXPECT_EQ(key["bucket"], "64K-128K");
  EXPECT_EQ(key["algorithm"], "Ring");
  EXPECT_EQ(key["protocol"], "LL");
  EXPECT_EQ(key["channels"], 2);
  EXPECT_EQ(key["timing_source"], "kernel_gpu");
  EXPECT_EQ(key["count"], 200);
  EXPECT_NEAR(key["p50_us"].get<double>(), 40.0, 0.4) << "the histogram's 1% relative error";
  EXPECT_NEAR(key["sum_us"].get<double>(), 200 * 40.0, 1e-6) << "sums are exact";
  for (const auto& [why, count] : comm["timing"]["dropped"].items()) EXPECT_EQ(count, 0) << why;
}

TEST(ProfilerAbi, V4ToV7TimeEveryCollectiveFromGpuStampsAcrossTwoThreads) {
  timesEveryCollectiveOnTheGpu<ncclProfiler_v4_t, ncclProfilerEventDescr_v4_t, ncclProfilerEventStateArgs_v4_t>(
      "ncclProfiler_v4");
  timesEveryCollectiveOnTheGpu<ncclProfiler_v5_t, ncclProfilerEventDescr_v5_t, ncclProfilerEventStateArgs_v5_t>(
      "ncclProfiler_v5");
  timesEveryCollectiveOnTheGpu<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t, ncclProfilerEventStateArgs_v6_t>(
      "ncclProfiler_v6");
  timesEveryCollectiveOnTheGpu<ncclProfiler_v7_t, ncclProfilerEventDescr_v7_t, ncclProfilerEventStateArgs_v7_t>(
      "ncclProfiler_v7");
}

// NCCL 2.26 has kernel channel events without stamps: the host clock times them, and says so.
TEST(ProfilerAbi, V3TimesWithTheHostClockAndLabelsIt) {
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* t = lib.table<ncclProfiler_v3_t>("ncclProfiler_v3");
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(t->init(&ctx, &mask), ncclSuccess);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(mask, kTimed);
  for (int i = 0; i < 5; ++i) {
    ncclProfilerEventDescr_v3_t c = allReduce<ncclProfilerEventDescr_v3_t>(nullptr, 1);
    void* coll = nullptr;
    t->startEvent(ctx, &coll, &c);
    ncclProfilerEventDescr_v3_t k = kernelChannel<ncclProfilerEventDescr_v3_t>(coll, 0, 0);
    void* ch = nullptr;
    t->startEvent(ctx, &ch, &k);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    t->stopEvent(ch);
  }
  ASSERT_EQ(t->finalize(ctx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  const nlohmann::json& key = file["communicators"][0]["timing"]["collectives"][0];
  EXPECT_EQ(key["timing_source"], "kernel_host");
  EXPECT_EQ(key["count"], 5);
  EXPECT_GE(key["min_us"].get<double>(), 200 * 0.99);
}

// Timing off costs NCCL nothing: a zero mask (NCCL builds no events) and no context, on every version.
TEST(ProfilerAbi, TimingOffGivesAZeroMaskAndNoContext) {
  TempDir dir;
  for (const char* setting : {"unset", "profile-0", "v1-v2"}) {
    SCOPED_TRACE(setting);
    std::string which = setting;
    ScopedEnv stats("NCCL_ROCE_STATS", which == "unset" ? "" : dir.join("stats"));
    ScopedEnv profile("NCCL_ROCE_PROFILE", which == "profile-0" ? "0" : "1");
    PluginLibrary lib = PluginLibrary::copy(dir.path(), which + ".so");
    int mask = -1;
    void* ctx = reinterpret_cast<void*>(1);
    if (which == "v1-v2") {
      ASSERT_EQ(lib.table<ncclProfiler_v1_t>("ncclProfiler_v1")->init(&ctx, &mask), ncclSuccess);
      EXPECT_EQ(mask, 0) << "NCCL 2.23 has no kernel channel events";
      ASSERT_EQ(lib.table<ncclProfiler_v2_t>("ncclProfiler_v2")->init(&ctx, &mask), ncclSuccess);
    } else {
      ASSERT_EQ(lib.table<ncclProfiler_v6_t>("ncclProfiler_v6")->init(&ctx, 7, &mask, "c", 1, 2, 0, nullptr),
                ncclSuccess);
    }
    EXPECT_EQ(mask, 0);
    EXPECT_EQ(ctx, nullptr);
  }
}

// What NCCL can hand a profiler that does not add up is counted, never followed, never an error.
TEST(ProfilerAbi, OddEventSequencesAreCountedAsDropped) {
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* t = lib.table<ncclProfiler_v6_t>("ncclProfiler_v6");
  int mask = 0;
  void* ctx = init(t, &mask, 42);
  ASSERT_NE(ctx, nullptr);
  ncclProfilerEventDescr_v6_t unknown{};
  unknown.type = uint64_t{1} << 40;
  void* h = nullptr;
  EXPECT_EQ(t->startEvent(ctx, &h, &unknown), ncclSuccess);
  EXPECT_EQ(h, nullptr);
  // A channel whose parent this profiler never gave out.
  ncclProfilerEventDescr_v6_t orphan =
      kernelChannel<ncclProfilerEventDescr_v6_t>(reinterpret_cast<void*>(0x1234), 0, 5);
  EXPECT_EQ(t->startEvent(ctx, &h, &orphan), ncclSuccess);
  // A stop stamp before the start.
  ncclProfilerEventDescr_v6_t c = allReduce<ncclProfilerEventDescr_v6_t>(nullptr, 1);
  void* coll = nullptr;
  t->startEvent(ctx, &coll, &c);
  ncclProfilerEventDescr_v6_t k = kernelChannel<ncclProfilerEventDescr_v6_t>(coll, 0, 5000);
  void* ch = nullptr;
  t->startEvent(ctx, &ch, &k);
  ncclProfilerEventStateArgs_v6_t early{};
  early.kernelCh.pTimer = 4000;
  EXPECT_EQ(t->recordEventState(ch, ncclProfilerKernelChStop, &early), ncclSuccess);
  // A second stop of the same channel.
  EXPECT_EQ(t->recordEventState(ch, ncclProfilerKernelChStop, &early), ncclSuccess);
  EXPECT_EQ(t->stopEvent(reinterpret_cast<void*>(0x5678)), ncclSuccess) << "a handle that is not ours";
  EXPECT_EQ(t->recordEventState(nullptr, ncclProfilerKernelChStop, nullptr), ncclSuccess);
  ASSERT_EQ(t->finalize(ctx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  const nlohmann::json& dropped = file["communicators"][0]["timing"]["dropped"];
  EXPECT_EQ(dropped["unknown_event"], 1);
  EXPECT_EQ(dropped["missing_parent"], 1);
  EXPECT_EQ(dropped["stop_before_start"], 1);
  EXPECT_EQ(dropped["stop_without_start"], 1);
}

// The statistics entry of a communicator carries both producers: the tuner's arm, policy and decisions, and the
// profiler's timings labelled with the rule that decided them and the chunk size it set (which the profiler
// cannot see: NCCL reports no chunk size to it).
TEST(ProfilerAbi, TimingsJoinTheTunersDecisionsAndRule) {
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  ScopedEnv policy("NCCL_ROCE_POLICY", dir.writeFile("p.toml",
                                                     "[policy]\nname = \"decode\"\n[[rule]]\n"
                                                     "name = \"decode-ring-ll\"\ncollective = \"allreduce\"\n"
                                                     "size = \"..1M\"\nalgorithm = \"ring\"\nprotocol = \"ll\"\n"
                                                     "chunk_size = \"x2\"\n"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* tuner = lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6");
  const auto* t = lib.table<ncclProfiler_v6_t>("ncclProfiler_v6");
  ASSERT_NE(tuner, nullptr);
  const uint64_t commId = 0xabcdef;
  void* tunerCtx = nullptr;
  ASSERT_EQ(tuner->init(&tunerCtx, commId, 16, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  int mask = 0;
  void* ctx = init(t, &mask, commId);
  std::vector<float> table(7 * 3, 1.0f);
  int nChannels = 0;
  tuner->getCollInfo(tunerCtx, ncclFuncAllReduce, 65536, 1, reinterpret_cast<float**>(table.data()), 7, 3, 0,
                     &nChannels);
  ASSERT_EQ(table[1 * 3 + 0], 0.0f) << "Ring/LL chosen";
  {
    ProxyThread<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t, ncclProfilerEventStateArgs_v6_t> proxy(t, ctx, 1);
    ncclProfilerEventDescr_v6_t c = allReduce<ncclProfilerEventDescr_v6_t>(nullptr, 1);
    void* coll = nullptr;
    t->startEvent(ctx, &coll, &c);
    proxy.push(coll, 1000, 30000);
  }
  ASSERT_EQ(t->finalize(ctx), ncclSuccess);
  ASSERT_EQ(tuner->finalize(tunerCtx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  ASSERT_EQ(file["communicators"].size(), 1u) << file.dump(1);
  const nlohmann::json& comm = file["communicators"][0];
  EXPECT_EQ(comm["comm_id"], "0x0000000000abcdef");
  EXPECT_EQ(comm["policy"], "decode");
  EXPECT_EQ(comm["decisions"][0]["rule"], "decode-ring-ll");
  EXPECT_EQ(comm["timing"]["collectives"][0]["rule"], "decode-ring-ll");
  EXPECT_EQ(comm["decisions"][0]["chunk_size"], "x2");
  EXPECT_EQ(comm["timing"]["collectives"][0]["chunk_size"], "x2");
}

// NCCL 2.28+'s sequence for one all-reduce and one send, as its enqueue makes the calls: GroupApi and CollApi
// (P2pApi) when the user calls, then the plan's Group and Coll (P2p), then the kernel's channels. Each stop or
// state is made only for a non-null handle, as NCCL makes it.
template <typename Table, typename Descr, typename Args>
void playApiLevelSequence(const Table* t, void* ctx, ProxyThread<Table, Descr, Args>& proxy, uint64_t startNs) {
  auto start = [&](Descr d) {
    void* h = nullptr;
    EXPECT_EQ(t->startEvent(ctx, &h, &d), ncclSuccess);
    return h;
  };
  auto stop = [&](void* h) {
    if (h != nullptr) t->stopEvent(h);
  };
  Descr groupApiEvent{};
  groupApiEvent.type = ncclProfileGroupApi;
  void* groupApi = start(groupApiEvent);
  EXPECT_EQ(groupApi, nullptr) << "an API-level event we do not use gets no handle, so NCCL sends nothing more for it";
  if (groupApi != nullptr) t->recordEventState(groupApi, ncclProfilerGroupStartApiStop, nullptr);
  Descr collApiEvent{};
  collApiEvent.type = ncclProfileCollApi;
  collApiEvent.parentObj = groupApi;
  if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v7_t>) collApiEvent.collApi.userTag = 0xdec0de;
  void* collApi = start(collApiEvent);
  stop(collApi);
  Descr p2pApiEvent{};
  p2pApiEvent.type = ncclProfileP2pApi;
  p2pApiEvent.parentObj = groupApi;
  void* p2pApi = start(p2pApiEvent);
  stop(p2pApi);
  Descr launch{};
  launch.type = ncclProfileKernelLaunch;  // only with its own mask bit, which we do not set: ignored if it comes
  stop(start(launch));
  Descr groupEvent{};
  groupEvent.type = ncclProfileGroup;
  void* group = start(groupEvent);
  Descr collEvent = allReduce<Descr>(group, 2);
  collEvent.parentObj = collApi;
  void* coll = start(collEvent);
  ASSERT_NE(coll, nullptr);
  Descr p2pEvent{};
  p2pEvent.type = ncclProfileP2p;
  p2pEvent.parentObj = p2pApi;
  void* p2p = start(p2pEvent);
  EXPECT_EQ(p2p, nullptr) << "point-to-point is not timed";
  proxy.push(coll, startNs, 40'000);
  proxy.push(p2p, startNs, 10'000);  // the send's kernel channels name no parent
  stop(coll);
  stop(p2p);
  stop(group);
  stop(groupApi);
}

// NCCL builds GroupApi, CollApi and P2pApi events whenever the Group, Coll or KernelCh bits are set (2.28-2.30),
// and P2p events with KernelCh: none of them is a loss, so a healthy job counts no dropped event. An event type
// NCCL does not have is still counted.
template <typename Table, typename Descr, typename Args>
void apiLevelEventsAreNotDrops(const char* symbol) {
  SCOPED_TRACE(symbol);
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* t = lib.table<Table>(symbol);
  int mask = 0;
  void* ctx = init(t, &mask, 0x42);
  ASSERT_NE(ctx, nullptr);
  {
    ProxyThread<Table, Descr, Args> proxy(t, ctx, 2);
    for (int i = 0; i < 50; ++i) playApiLevelSequence(t, ctx, proxy, 1'000'000ull + i * 100'000ull);
  }
  if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v7_t>) {
    EXPECT_EQ(mask & ncclProfileKernelPhase, 0) << "KernelPhase is never asked for: NCCL would instrument every kernel";
    Descr phase{};
    phase.type = ncclProfileKernelPhase;  // v7's own event type: known, ignored, were NCCL to send one anyway
    phase.parentObj = &phase;
    void* ph = &ph;
    EXPECT_EQ(t->startEvent(ctx, &ph, &phase), ncclSuccess);
    EXPECT_EQ(ph, nullptr);
    ncclProfilerEventStateArgs_v7_t phaseStop{};
    phaseStop.kernelCh.pTimer = 5;
    EXPECT_EQ(t->recordEventState(ph, ncclProfilerKernelPhaseStop, &phaseStop), ncclSuccess);
  }
  Descr future{};
  future.type = uint64_t{1} << 20;  // no NCCL release has it
  void* h = &h;
  EXPECT_EQ(t->startEvent(ctx, &h, &future), ncclSuccess);
  EXPECT_EQ(h, nullptr);
  ASSERT_EQ(t->finalize(ctx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  const nlohmann::json& timing = file["communicators"][0]["timing"];
  EXPECT_EQ(timing["collectives"][0]["count"], 50);
  for (const auto& [why, count] : timing["dropped"].items()) EXPECT_EQ(count, why == "unknown_event" ? 1 : 0) << why;
}

TEST(ProfilerAbi, NcclsApiLevelEventsAreNotCountedAsDrops) {
  apiLevelEventsAreNotDrops<ncclProfiler_v5_t, ncclProfilerEventDescr_v5_t, ncclProfilerEventStateArgs_v5_t>(
      "ncclProfiler_v5");
  apiLevelEventsAreNotDrops<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t, ncclProfilerEventStateArgs_v6_t>(
      "ncclProfiler_v6");
  apiLevelEventsAreNotDrops<ncclProfiler_v7_t, ncclProfilerEventDescr_v7_t, ncclProfilerEventStateArgs_v7_t>(
      "ncclProfiler_v7");
}

// vLLM's shape: eager collectives from the user's thread while a CUDA graph replays, whose host node starts the
// captured plan's Group and Coll events again at every replay on CUDA's host-callback thread (NCCL's
// hostStreamPlanCallback). With NCCL_GRAPH_MIXING_SUPPORT=0 NCCL does not order the two, so both threads start
// events for one communicator at once, while the proxy thread plays every kernel's channels and the metrics
// writer snapshots. Each collective is timed once, under its own size, and nothing is dropped (TSan: label
// concurrency).
template <typename Table, typename Descr, typename Args>
void timesReplaysAndEagerCollectivesTogether(const char* symbol) {
  SCOPED_TRACE(symbol);
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  ScopedEnv metrics("NCCL_ROCE_METRICS", dir.path());
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  const auto* t = lib.table<Table>(symbol);
  int mask = 0;
  void* ctx = init(t, &mask, 0x77);
  ASSERT_NE(ctx, nullptr);
  constexpr int kEach = 2000;
  {
    ProxyThread<Table, Descr, Args> proxy(t, ctx, 2);
    auto plans = [&](uint64_t count, uint64_t durationNs) {
      for (int i = 0; i < kEach; ++i) {
        Descr g{};
        g.type = ncclProfileGroup;
        void* group = nullptr;
        t->startEvent(ctx, &group, &g);
        Descr c = allReduce<Descr>(group, 2);
        c.coll.count = count;
        void* coll = nullptr;
        t->startEvent(ctx, &coll, &c);
        proxy.push(coll, 1'000'000ull + static_cast<uint64_t>(i) * 1000, durationNs);
        t->stopEvent(coll);
        t->stopEvent(group);
      }
    };
    std::thread hostCallback(plans, 1u << 20, 90'000);  // the graph's 4 MiB all-reduces
    plans(16384, 40'000);                               // eager 64 KiB ones
    hostCallback.join();
  }
  ASSERT_EQ(t->finalize(ctx), ncclSuccess);
  nlohmann::json file = readStatistics(dir.join("stats"));
  const nlohmann::json& timing = file["communicators"][0]["timing"];
  ASSERT_EQ(timing["collectives"].size(), 2u) << timing.dump(1);
  for (const nlohmann::json& key : timing["collectives"]) {
    EXPECT_EQ(key["timing_source"], "kernel_gpu") << key["bucket"];
    EXPECT_EQ(key["count"], kEach) << key["bucket"];
    EXPECT_NEAR(key["p50_us"].get<double>(), key["bucket"] == "64K-128K" ? 40.0 : 90.0, 1.0) << key["bucket"];
  }
  for (const auto& [why, count] : timing["dropped"].items()) EXPECT_EQ(count, 0) << why;
}

TEST(ProfilerAbi, ReplaysOnCudasCallbackThreadAndEagerCollectivesAreTimedTogether) {
  timesReplaysAndEagerCollectivesTogether<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t,
                                          ncclProfilerEventStateArgs_v6_t>("ncclProfiler_v6");
  timesReplaysAndEagerCollectivesTogether<ncclProfiler_v7_t, ncclProfilerEventDescr_v7_t,
                                          ncclProfilerEventStateArgs_v7_t>("ncclProfiler_v7");
}

}  // namespace
}  // namespace nccl_roce::testing

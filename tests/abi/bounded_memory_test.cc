// Memory as a long-running process meets it: an RL trainer syncing weights into vLLM, or elastic serving, creates
// and destroys communicators for as long as it lives while its serving communicators stay. Through the built
// library, with statistics and metrics on: after the caps on finalized communicators have filled (128 final
// statistics entries, 64 textfile entries), over 10,000 more communicators, each timing a few all-reduces, come
// and go, and the heap is where it was. Measured in this process (glibc's mallinfo2, or ASan's allocator) at two
// quiet moments: every communicator finalized, so no writer thread holds a file's text.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v7.h"
#include "plugin/telemetry_file.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

#if defined(__SANITIZE_ADDRESS__)
// From the ASan runtime (its header, sanitizer/allocator_interface.h, is not installed with every compiler).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
// ASan's allocator takes about 25 ms per communicator here (each tracker's 640 KiB ring through its quarantine):
// the sanitizer suite runs a tenth of the cycles, which still fills and turns over every cap several times.
constexpr int kWarmUp = 200, kAtLeast = 1000;
#else
constexpr int kWarmUp = 500, kAtLeast = 10000;
#endif

namespace nccl_roce::testing {
namespace {

size_t heapInUse() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;  // in use from the arenas, and in chunks of their own (the trackers' rings)
#endif
}

// A communicator as NCCL holds it, in one library copy (NCCL 2.30's tables).
class Communicator {
 public:
  Communicator(const PluginLibrary& lib, uint64_t commId)
      : profiler_(lib.table<ncclProfiler_v7_t>("ncclProfiler_v7")),
        tuner_(lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7")) {
    int mask = 0;
    profiler_->init(&profilerContext_, commId, &mask, "weight-sync", 2, 16, 3, nullptr);
    tuner_->init(&tunerContext_, commId, 16, 2, nullptr, nullptr, nullptr);
  }
  ~Communicator() {
    tuner_->finalize(tunerContext_);
    profiler_->finalize(profilerContext_);
  }
  bool timed() const { return profilerContext_ != nullptr && tunerContext_ != nullptr; }

  // One all-reduce of `bytes` on one channel, 40 us on the GPU: its decision and its events, as NCCL makes them.
  void allReduce(size_t bytes) {
    std::vector<float> table(7 * 3, 1.0f);
    int channels = 0;
    tuner_->getCollInfo(tunerContext_, ncclFuncAllReduce, bytes, 1, reinterpret_cast<float**>(table.data()), 7, 3, 0,
                        &channels);
    ncclProfilerEventDescr_v7_t group{}, coll{}, channel{};
    group.type = ncclProfileGroup;
    void* groupHandle = nullptr;
    profiler_->startEvent(profilerContext_, &groupHandle, &group);
    coll.type = ncclProfileColl;
    coll.coll.func = "AllReduce";
    coll.coll.count = bytes / 4;
    coll.coll.datatype = "ncclFloat32";
    coll.coll.algo = "RING";
    coll.coll.proto = "LL";
    coll.coll.nChannels = 1;
    coll.coll.parentGroup = groupHandle;
    void* collHandle = nullptr;
    profiler_->startEvent(profilerContext_, &collHandle, &coll);
    channel.type = ncclProfileKernelCh;
    channel.parentObj = collHandle;
    channel.kernelCh.pTimer = clock_;
    void* channelHandle = nullptr;
    profiler_->startEvent(profilerContext_, &channelHandle, &channel);
    ncclProfilerEventStateArgs_v7_t stop{};
    stop.kernelCh.pTimer = clock_ + 40000;
    profiler_->recordEventState(channelHandle, ncclProfilerKernelChStop, &stop);
    profiler_->stopEvent(channelHandle);
    profiler_->stopEvent(collHandle);
    profiler_->stopEvent(groupHandle);
    clock_ += 100000;
  }

 private:
  const ncclProfiler_v7_t* profiler_;
  const ncclTuner_v7_t* tuner_;
  void* profilerContext_ = nullptr;
  void* tunerContext_ = nullptr;
  uint64_t clock_ = 1000000000ull;
};

// `cycles` weight-sync communicators beside one serving communicator; all finalized when this returns.
void churn(const PluginLibrary& lib, uint64_t firstId, int cycles) {
  Communicator serving(lib, 0x5e7u);
  for (int i = 0; i < 100; ++i) serving.allReduce(size_t{4096} << (i % 8));
  for (int i = 0; i < cycles; ++i) {
    Communicator weightSync(lib, firstId + static_cast<uint64_t>(i));
    ASSERT_TRUE(weightSync.timed());
    for (size_t bytes : {size_t{1} << 20, size_t{1} << 24, size_t{1} << 26}) weightSync.allReduce(bytes);
  }
}

TEST(BoundedMemory, TenThousandCommunicatorsComeAndGoWithTheHeapFlat) {
  TempDir dir;
  ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats"));
  ScopedEnv metrics("NCCL_ROCE_METRICS", dir.path());
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "copy.so");
  ASSERT_TRUE(lib.loaded()) << lib.error();
  churn(lib, 0x100000, kWarmUp);  // past both caps
  size_t settled = heapInUse();
  // At least 10,000 more, and as many as leave the same number of final entries held in memory (a whole number
  // of part files' worth: the serving communicator and the weight syncs), so both quiet moments hold alike.
  const int cycles = (kAtLeast / static_cast<int>(plugin::kFinalsKept) + 1) * static_cast<int>(plugin::kFinalsKept) - 1;
  churn(lib, 0x200000, cycles);
  size_t after = heapInUse();
  long long grown = static_cast<long long>(after) - static_cast<long long>(settled);
  std::printf("heap in use: %zu bytes after the first %d communicators, %zu after %d more (%+lld)\n", settled, kWarmUp,
              after, cycles, grown);
  // What stays varies by a few KiB with the allocator's per-thread caches (+2.6 KB to +13 KB after 10,000 to
  // 40,000 communicators, not growing with them); the leak this guards against was about 10 KiB per communicator.
  EXPECT_LT(grown, 64 * 1024) << "finalized communicators are written, folded and freed, past a fixed cap";
  // Every communicator is in the files, none dropped from them: the serving ones (2) and the weight syncs.
  size_t entries = 0;
  for (uint32_t part = 0;; ++part) {
    std::string path = dir.join("stats." + std::to_string(::getpid()) +
                                (part == 0 ? std::string(".json") : ".final-" + std::to_string(part) + ".json"));
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) break;
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr)
      entries += std::string(line).find("\"entry\":") != std::string::npos;
    std::fclose(f);
  }
  EXPECT_EQ(entries, 2u + static_cast<size_t>(kWarmUp + cycles));
}

}  // namespace
}  // namespace nccl_roce::testing

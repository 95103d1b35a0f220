// Drives the profiler through collectives' events N times, for callgrind instruction counts
// (tests/bench/profiler/profiler_callgrind.sh), through the built libnccl-roce.so's ncclProfiler_v6 table
// (NCCL 2.29-2.30). Sizes cycle over 8 power-of-two buckets and 2 protocols, so the key table sees 16 keys as a
// decode loop does. Each call is made only where NCCL makes it (the activation mask and the handles decide).
//   on:     per collective, what NCCL calls with timing on: Group start, Coll start, Coll stop, Group stop on the
//           user's thread; KernelCh start, its KernelChStop state and its stop on the proxy thread's side.
//   off:    the same with timing off (NCCL_ROCE_STATS unset): init returns mask 0, so, as in NCCL, no call.
//   replay: 16 collectives captured in a CUDA graph (their Group and Coll events fire once, at capture), then
//           per replayed collective only what NCCL calls at each replay: KernelCh start, KernelChStop, stop.
//   memory: prints the tracker's bytes per communicator (CollectiveTracker::bytesFor) for docs/performance.md.
// Usage: profiler_call_driver COLLECTIVES on|off|replay, or profiler_call_driver memory
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "plugin/nccl/profiler_v6.h"
#include "profiler/collective_tracker.h"
#include "profiler/log_histogram.h"
#include "tests/support/temp_dir.h"

namespace {

struct Profiler {
  const ncclProfiler_v6_t* table = nullptr;
  void* context = nullptr;
  int mask = 0;
};

// Collective i's Group and Coll events, as NCCL's enqueue makes them; returns the Coll handle (nullptr: none).
void* startCollective(const Profiler& p, long i) {
  static const char* const kProtocols[] = {"LL", "SIMPLE"};
  void* g = nullptr;
  void* c = nullptr;
  if (p.mask & (ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh)) {
    ncclProfilerEventDescr_v6_t group{};
    group.type = ncclProfileGroup;
    p.table->startEvent(p.context, &g, &group);
  }
  if (p.mask & (ncclProfileColl | ncclProfileKernelCh)) {
    ncclProfilerEventDescr_v6_t coll{};
    coll.type = ncclProfileColl;
    coll.coll.func = "AllReduce";
    coll.coll.count = size_t{1024} << (i % 8);
    coll.coll.datatype = "ncclBfloat16";
    coll.coll.algo = "RING";
    coll.coll.proto = kProtocols[(i / 8) % 2];
    coll.coll.nChannels = 1;
    coll.coll.parentGroup = g;
    p.table->startEvent(p.context, &c, &coll);
  }
  if (c != nullptr) p.table->stopEvent(c);
  if (g != nullptr) p.table->stopEvent(g);
  return c;
}

// The collective's one kernel channel, as NCCL's proxy thread reports it: start, KernelChStop state, stop.
void runChannel(const Profiler& p, void* coll, uint64_t startNs, uint64_t durationNs) {
  void* k = nullptr;
  if ((p.mask & ncclProfileKernelCh) && coll != nullptr) {
    ncclProfilerEventDescr_v6_t channel{};
    channel.type = ncclProfileKernelCh;
    channel.parentObj = coll;
    channel.kernelCh.pTimer = startNs;
    p.table->startEvent(p.context, &k, &channel);
  }
  if (k != nullptr) {
    ncclProfilerEventStateArgs_v6_t stop{};
    stop.kernelCh.pTimer = startNs + durationNs;
    p.table->recordEventState(k, ncclProfilerKernelChStop, &stop);
    p.table->stopEvent(k);
  }
}

int printMemory() {
  std::printf("CollectiveTracker::bytesFor(16384) = %zu bytes; LogHistogram per key = %zu bytes\n",
              nccl_roce::profiler::CollectiveTracker::bytesFor(16384), sizeof(nccl_roce::profiler::LogHistogram));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf("usage: %s COLLECTIVES on|off|replay, or %s memory: profiler calls through the built library, for "
                "callgrind (tests/bench/profiler/profiler_callgrind.sh)\n", argv[0], argv[0]);
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "memory") return printMemory();
  std::string mode = argc == 3 ? argv[2] : "";
  if (mode != "on" && mode != "off" && mode != "replay") {
    std::fprintf(stderr, "usage: %s COLLECTIVES on|off|replay, or %s memory\n", argv[0], argv[0]);
    return 2;
  }
  long collectives = std::atol(argv[1]);
  bool on = mode != "off";
  nccl_roce::testing::TempDir dir;
  if (on) {
    ::setenv("NCCL_ROCE_STATS", (dir.path() + "/stats").c_str(), 1);
  } else {
    ::unsetenv("NCCL_ROCE_STATS");
  }
  void* library = ::dlopen(NCCL_ROCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  Profiler p;
  p.table = library ? static_cast<const ncclProfiler_v6_t*>(::dlsym(library, "ncclProfiler_v6")) : nullptr;
  if (p.table == nullptr) {
    std::fprintf(stderr, "cannot load the profiler from %s: %s\n", NCCL_ROCE_PLUGIN_PATH, ::dlerror());
    return 1;
  }
  p.table->init(&p.context, 42, &p.mask, "bench", 2, 16, 0, nullptr);
  if (on != (p.mask != 0 && p.context != nullptr)) {
    std::fprintf(stderr, "timing %s expected, mask %d\n", on ? "on" : "off", p.mask);
    return 1;
  }
  uint64_t stamp = 1'000'000'000;
  std::vector<void*> captured;
  if (mode == "replay") {
    for (long i = 0; i < 16; ++i) captured.push_back(startCollective(p, i));
  }
  for (long i = 0; i < collectives; ++i) {
    void* coll = mode == "replay" ? captured[static_cast<size_t>(i % 16)] : startCollective(p, i);
    runChannel(p, coll, stamp, 20'000 + static_cast<uint64_t>(i % 8) * 1'000);
    stamp += 100'000;
  }
  p.table->finalize(p.context);
  return 0;
}

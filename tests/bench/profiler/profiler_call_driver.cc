// Drives the profiler through one collective's events N times, for callgrind instruction counts
// (tests/bench/profiler/profiler_callgrind.sh): what NCCL 2.30 calls per collective with timing on, through the
// built libnccl-roce.so's ncclProfiler_v6 table (Group start/stop, Coll start/stop on the user's thread; one
// KernelCh start, KernelChStop state and stop on the proxy thread's side). Sizes cycle over 8 power-of-two
// buckets and 2 protocols, so the key table sees 16 keys as a decode loop does.
// Each call is made only where NCCL makes it (the activation mask and the handles decide), so with timing off
// (NCCL_ROCE_STATS unset: init returns mask 0) no call is made, as in NCCL.
//   profiler_call_driver COLLECTIVES on|off
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "plugin/nccl/profiler_v6.h"
#include "tests/support/temp_dir.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s COLLECTIVES on|off\n", argv[0]);
    return 2;
  }
  long collectives = std::atol(argv[1]);
  bool on = std::string(argv[2]) == "on";
  nccl_roce::testing::TempDir dir;
  if (on) {
    ::setenv("NCCL_ROCE_STATS", (dir.path() + "/stats").c_str(), 1);
  } else {
    ::unsetenv("NCCL_ROCE_STATS");
  }
  void* library = ::dlopen(NCCL_ROCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  const auto* p = library ? static_cast<const ncclProfiler_v6_t*>(::dlsym(library, "ncclProfiler_v6")) : nullptr;
  if (p == nullptr) {
    std::fprintf(stderr, "cannot load the profiler from %s: %s\n", NCCL_ROCE_PLUGIN_PATH, ::dlerror());
    return 1;
  }
  void* context = nullptr;
  int mask = 0;
  p->init(&context, 42, &mask, "bench", 2, 16, 0, nullptr);
  if (on != (mask != 0 && context != nullptr)) {
    std::fprintf(stderr, "timing %s expected, mask %d\n", on ? "on" : "off", mask);
    return 1;
  }
  const char* protocols[] = {"LL", "SIMPLE"};
  uint64_t stamp = 1'000'000'000;
  // NCCL's own tests before each call: the activation mask, and a handle from the event's start.
  const bool groups = mask & (ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh);
  const bool colls = mask & (ncclProfileColl | ncclProfileKernelCh);
  const bool channels = mask & ncclProfileKernelCh;
  for (long i = 0; i < collectives; ++i) {
    void* g = nullptr;
    void* c = nullptr;
    void* k = nullptr;
    if (groups) {
      ncclProfilerEventDescr_v6_t group{};
      group.type = ncclProfileGroup;
      p->startEvent(context, &g, &group);
    }
    if (colls) {
      ncclProfilerEventDescr_v6_t coll{};
      coll.type = ncclProfileColl;
      coll.coll.func = "AllReduce";
      coll.coll.count = size_t{1024} << (i % 8);
      coll.coll.datatype = "ncclBfloat16";
      coll.coll.algo = "RING";
      coll.coll.proto = protocols[(i / 8) % 2];
      coll.coll.nChannels = 1;
      coll.coll.parentGroup = g;
      p->startEvent(context, &c, &coll);
    }
    if (c != nullptr) p->stopEvent(c);
    if (g != nullptr) p->stopEvent(g);
    if (channels && c != nullptr) {
      ncclProfilerEventDescr_v6_t channel{};
      channel.type = ncclProfileKernelCh;
      channel.parentObj = c;
      channel.kernelCh.pTimer = stamp;
      p->startEvent(context, &k, &channel);
    }
    if (k != nullptr) {
      ncclProfilerEventStateArgs_v6_t stop{};
      stop.kernelCh.pTimer = stamp + 20'000 + (i % 8) * 1'000;
      p->recordEventState(k, ncclProfilerKernelChStop, &stop);
      p->stopEvent(k);
    }
    stamp += 100'000;
  }
  p->finalize(context);
  return 0;
}

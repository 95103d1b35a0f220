// Drives the profiler through collectives' events N times, for callgrind instruction counts
// (tests/bench/profiler/profiler_callgrind.sh), through the built libnccl-roce.so's ncclProfiler_v7 table
// (NCCL 2.29-2.30). Sizes cycle over 8 power-of-two buckets and 2 protocols, so the key table sees 16 keys as a
// decode loop does. Each call is made only where NCCL makes it (the activation mask and the handles decide).
//   on:     per collective, what NCCL calls with timing on (src/plugin/profiler.cc, src/enqueue.cc): GroupApi
//           and CollApi start when the user calls (their stops only for a handle, and we give none), Group
//           start, Coll start, Coll stop, Group stop where the plan goes to the proxy; KernelCh start, its
//           KernelChStop state and its stop on the proxy thread.
//   off:    the same with timing off (NCCL_ROCE_STATS unset): init returns mask 0, so, as in NCCL, no call.
//   replay: per replay of a graph-captured collective, what NCCL calls at each replay: the plan's Group and
//           Coll events again (from a second thread, as CUDA's host-callback thread makes them) and its
//           channels'; the API-level events came once, at capture.
//   switchback: as "on", in a switchback experiment (block 16) whose arms run LL and Simple: the tuner (not
//           counted) decides each collective first, and the profiler attributes its time to the arm and windows.
//   switchback-replay: per replay of a graph-captured collective in a switchback (block 4): 64 collectives
//           captured once (a CollApi event flagged graphCaptured, then the tuner's call), then replayed from a second
//           thread, each replay's Coll event naming its capture: its time goes to the captured collective's slot.
//   memory: prints the tracker's bytes per communicator (CollectiveTracker::bytesFor) for docs/performance.md.
// Usage: profiler_call_driver COLLECTIVES on|off|replay|switchback, or profiler_call_driver memory
#include <dlfcn.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v7.h"
#include "profiler/collective_tracker.h"
#include "telemetry/log_histogram.h"
#include "tests/support/temp_dir.h"

namespace {

struct Profiler {
  const ncclProfiler_v7_t* table = nullptr;
  void* context = nullptr;
  int mask = 0;
  // A switchback's: the tuner decides each collective's protocol first.
  const ncclTuner_v7_t* tuner = nullptr;
  void* tunerContext = nullptr;
};

// The protocol the tuner chose for an all-reduce of `bytes` (0 LL, 2 Simple), as NCCL reads its table.
int decideProtocol(const Profiler& p, size_t bytes) {
  float table[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                       {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  int channels = 0;
  p.tuner->getCollInfo(p.tunerContext, ncclFuncAllReduce, bytes, 1, reinterpret_cast<float**>(table), 7, 3, 0,
                       &channels);
  return table[1][0] == 0.0f ? 0 : 2;
}

// What NCCL 2.28+ calls when the user calls a collective: GroupApi and CollApi start (each stopped only if it
// got a handle).
void callCollective(const Profiler& p) {
  if (!(p.mask & (ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh | ncclProfileCollApi))) return;
  for (uint64_t type : {uint64_t{ncclProfileGroupApi}, uint64_t{ncclProfileCollApi}}) {
    ncclProfilerEventDescr_v7_t api{};
    api.type = type;
    void* h = nullptr;
    p.table->startEvent(p.context, &h, &api);
    if (h != nullptr) p.table->stopEvent(h);
  }
}

// A collective captured into a CUDA graph: its CollApi event (its handle names the capture) and the tuner's call.
struct Captured {
  void* handle = nullptr;
  int protocol = 0;
};
Captured capture(const Profiler& p, long i) {
  const size_t bytes = size_t{2048} << (i % 8);
  ncclProfilerEventDescr_v7_t api{};
  api.type = ncclProfileCollApi;
  api.collApi.func = "AllReduce";
  api.collApi.count = bytes / 2;
  api.collApi.datatype = "ncclBfloat16";
  api.collApi.graphCaptured = true;
  Captured c;
  p.table->startEvent(p.context, &c.handle, &api);
  if (c.handle != nullptr) p.table->stopEvent(c.handle);
  c.protocol = decideProtocol(p, bytes);
  return c;
}

// Collective i's plan: its Group and Coll events, as NCCL makes them when it hands the plan to its proxy;
// returns the Coll handle (nullptr: none). A replay of a captured collective names its capture as the parent.
void* startCollective(const Profiler& p, long i, const Captured* captured = nullptr) {
  static const char* const kProtocols[] = {"LL", "LL128", "SIMPLE"};
  const size_t bytes = size_t{2048} << (i % 8);
  const int protocol = captured != nullptr  ? captured->protocol
                       : p.tuner != nullptr ? decideProtocol(p, bytes)
                                            : 2 * ((i / 8) % 2);
  void* g = nullptr;
  void* c = nullptr;
  if (p.mask & (ncclProfileGroup | ncclProfileColl | ncclProfileKernelCh)) {
    ncclProfilerEventDescr_v7_t group{};
    group.type = ncclProfileGroup;
    p.table->startEvent(p.context, &g, &group);
  }
  if (p.mask & (ncclProfileColl | ncclProfileKernelCh)) {
    ncclProfilerEventDescr_v7_t coll{};
    coll.type = ncclProfileColl;
    coll.coll.func = "AllReduce";
    coll.coll.count = bytes / 2;
    coll.coll.datatype = "ncclBfloat16";
    coll.coll.algo = "RING";
    coll.coll.proto = kProtocols[protocol];
    coll.coll.nChannels = 1;
    coll.coll.parentGroup = g;
    coll.parentObj = captured != nullptr ? captured->handle : nullptr;
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
    ncclProfilerEventDescr_v7_t channel{};
    channel.type = ncclProfileKernelCh;
    channel.parentObj = coll;
    channel.kernelCh.pTimer = startNs;
    p.table->startEvent(p.context, &k, &channel);
  }
  if (k != nullptr) {
    ncclProfilerEventStateArgs_v7_t stop{};
    stop.kernelCh.pTimer = startNs + durationNs;
    p.table->recordEventState(k, ncclProfilerKernelChStop, &stop);
    p.table->stopEvent(k);
  }
}

size_t heapInUse() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;  // the ring is big enough to be mmapped: hblkhd
}

// A communicator's tracker as the plugin makes it (default config), measured as heap in use: before any
// collective, then after each of 16 keys' first collective (the key's entry and the name combinations).
int printMemory() {
  using nccl_roce::profiler::CollectiveTracker;
  size_t before = heapInUse();
  auto tracker = std::make_unique<CollectiveTracker>(CollectiveTracker::Config{});
  size_t empty = heapInUse() - before;
  static const char* const kProtocols[] = {"LL", "SIMPLE"};
  for (int i = 0; i < 16; ++i) {
    tracker->startCollective(
        {"AllReduce", "ncclBfloat16", "RING", kProtocols[i / 8], size_t{1024} << (i % 8), 1, nullptr});
  }
  size_t keyed = heapInUse() - before;
  std::printf(
      "tracker heap: %zu bytes before any key (CollectiveTracker::bytesFor(16384) = %zu); %zu with 16 keys "
      "(%zu per key; LogHistogram %zu)\n",
      empty, CollectiveTracker::bytesFor(16384), keyed, (keyed - empty) / 16,
      sizeof(nccl_roce::telemetry::LogHistogram));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf(
        "usage: %s COLLECTIVES on|off|replay|switchback|switchback-replay, or %s memory: profiler calls through the "
        "built library, for "
        "callgrind (tests/bench/profiler/profiler_callgrind.sh)\n",
        argv[0], argv[0]);
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "memory") return printMemory();
  std::string mode = argc == 3 ? argv[2] : "";
  const bool switchback = mode == "switchback" || mode == "switchback-replay";
  if (mode != "on" && mode != "off" && mode != "replay" && !switchback) {
    std::fprintf(stderr, "usage: %s COLLECTIVES on|off|replay|switchback|switchback-replay, or %s memory\n", argv[0],
                 argv[0]);
    return 2;
  }
  long collectives = std::atol(argv[1]);
  bool on = mode != "off";
  nccl_roce::testing::TempDir dir;
  if (switchback) {
    dir.writeFile("ll.toml",
                  "[policy]\nname = \"ll\"\n[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
                  "protocol = \"ll\"\n");
    dir.writeFile("simple.toml",
                  "[policy]\nname = \"simple\"\n[[rule]]\ncollective = \"allreduce\"\n"
                  "algorithm = \"ring\"\nprotocol = \"simple\"\n");
    ::setenv("NCCL_ROCE_POLICY",
             dir.writeFile("experiment.toml",
                           "[experiment]\nname = \"bench\"\ndesign = \"switchback\"\nblock = " +
                               std::string(mode == "switchback" ? "16" : "4") +
                               "\n"
                               "[[experiment.arm]]\nname = \"ll\"\npolicy = \"ll.toml\"\nweight = 50\n"
                               "[[experiment.arm]]\nname = \"simple\"\npolicy = \"simple.toml\"\nweight = 50\n")
                 .c_str(),
             1);
  }
  if (on) {
    ::setenv("NCCL_ROCE_STATS", (dir.path() + "/stats").c_str(), 1);
  } else {
    ::unsetenv("NCCL_ROCE_STATS");
  }
  void* library = ::dlopen(NCCL_ROCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  Profiler p;
  p.table = library ? static_cast<const ncclProfiler_v7_t*>(::dlsym(library, "ncclProfiler_v7")) : nullptr;
  if (p.table == nullptr) {
    std::fprintf(stderr, "cannot load the profiler from %s: %s\n", NCCL_ROCE_PLUGIN_PATH, ::dlerror());
    return 1;
  }
  p.table->init(&p.context, 42, &p.mask, "bench", 2, 16, 0, nullptr);
  if (switchback) {  // NCCL's order: the profiler, then the tuner, on one thread
    p.tuner = static_cast<const ncclTuner_v7_t*>(::dlsym(library, "ncclTunerPlugin_v7"));
    p.tuner->init(&p.tunerContext, 42, 16, 2, nullptr, nullptr, nullptr);
  }
  if (on != (p.mask != 0 && p.context != nullptr)) {
    std::fprintf(stderr, "timing %s expected, mask %d\n", on ? "on" : "off", p.mask);
    return 1;
  }
  uint64_t stamp = 1'000'000'000;
  auto run = [&] {
    for (long i = 0; i < collectives; ++i) {
      if (mode != "replay") callCollective(p);
      void* coll = startCollective(p, i);
      runChannel(p, coll, stamp, 20'000 + static_cast<uint64_t>(i % 8) * 1'000);
      stamp += 100'000;
    }
  };
  if (mode == "replay") {
    for (int i = 0; i < 16; ++i) callCollective(p);  // the capture: only the API-level calls
    std::thread(run).join();
  } else if (mode == "switchback-replay") {
    std::vector<Captured> graph;
    for (long i = 0; i < 64; ++i) graph.push_back(capture(p, i));  // once, at capture
    std::thread([&] {
      for (long i = 0; i < collectives; ++i) {
        void* coll = startCollective(p, i % 64, &graph[static_cast<size_t>(i % 64)]);
        runChannel(p, coll, stamp, 20'000 + static_cast<uint64_t>(i % 8) * 1'000);
        stamp += 100'000;
      }
    }).join();
  } else {
    run();
  }
  if (p.tuner != nullptr) p.tuner->finalize(p.tunerContext);
  p.table->finalize(p.context);
  return 0;
}

// Drives getCollInfo N times on a policy of R rules, for callgrind instruction counts
// (tests/bench/tuner/tuner_callgrind.sh). It calls what NCCL calls: the built libnccl-roce.so, opened with
// dlopen, through its exported ncclTunerPlugin_v7 table (the newest), so the figure is the shipped code's (no inlining
// or constant propagation into the driver). Every rule applies to the communicator (the worst case for the lookup):
// all-reduce rules on consecutive 4 KiB size ranges, alternating preferences, some with pipe_ops.
//   tuner_call_driver RULES CALLS [stats|chunk|switchback]
// "stats": with NCCL_ROCE_STATS set, counting every decision. "chunk": every rule also sets chunk sizes, and each
// getCollInfo is followed by three getChunkSize calls (NCCL's lo, mid and hi channel pieces). "switchback": a
// switchback experiment (block 16) between that policy and NCCL's own choices, statistics on: each call also
// takes its turn and notes its arm for the profiler.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "plugin/nccl/tuner_v7.h"
#include "tests/support/temp_dir.h"

namespace {

std::string makePolicy(int rules, bool chunks) {
  std::string text = "[policy]\nname = \"bench-" + std::to_string(rules) + "\"\n";
  for (int i = 0; i < rules; ++i) {
    text += "[[rule]]\ncollective = \"allreduce\"\nnodes = \"2..\"\n";
    text += "size = \"" + std::to_string(i * 4096) + ".." + std::to_string((i + 1) * 4096) + "\"\n";
    if (i % 3 == 0) text += "pipe_ops = \"2..\"\n";
    text += i % 2 ? "algorithm = [\"tree\", \"ring\"]\nprotocol = \"ll\"\n" : "protocol = [\"ll128\", \"simple\"]\n";
    if (i % 5 == 0) text += "channels = 8\n";
    if (chunks) text += i % 2 ? "chunk_size = \"16K\"\n" : "chunk_size = { ll128 = \"x2\", simple = \"256K\" }\n";
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  bool help = argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h");
  const std::string mode = argc == 4 ? argv[3] : "";
  if (help || (argc != 3 && !(argc == 4 && (mode == "stats" || mode == "chunk" || mode == "switchback")))) {
    std::fprintf(
        help ? stdout : stderr,
        "usage: %s RULES CALLS [stats|chunk|switchback]: CALLS getCollInfo calls through the built library over a "
        "policy of RULES rules (statistics on with 'stats'; with 'chunk' the rules set chunk sizes and each "
        "call is followed by three getChunkSize calls), for callgrind (tests/bench/tuner/tuner_callgrind.sh)\n",
        argv[0]);
    if (help) return 0;
    return 2;
  }
  int rules = std::atoi(argv[1]);
  long calls = std::atol(argv[2]);
  nccl_roce::testing::TempDir dir;
  std::string path = dir.writeFile("bench.toml", makePolicy(rules, mode == "chunk"));
  if (mode == "switchback") {
    path = dir.writeFile("switchback.toml",
                         "[experiment]\nname = \"bench\"\ndesign = \"switchback\"\nblock = 16\n[[experiment.arm]]\n"
                         "name = \"control\"\npolicy = \"nccl\"\nweight = 50\n[[experiment.arm]]\nname = \"rules\"\n"
                         "policy = \"bench.toml\"\nweight = 50\n");
  }
  ::setenv("NCCL_ROCE_POLICY", path.c_str(), 1);
  if (mode == "stats" || mode == "switchback") {
    ::setenv("NCCL_ROCE_STATS", (dir.path() + "/stats").c_str(), 1);
  } else {
    ::unsetenv("NCCL_ROCE_STATS");
  }
  void* library = ::dlopen(NCCL_ROCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  const auto* tuner = library ? static_cast<const ncclTuner_v7_t*>(::dlsym(library, "ncclTunerPlugin_v7")) : nullptr;
  if (tuner == nullptr) {
    std::fprintf(stderr, "cannot load the tuner from %s: %s\n", NCCL_ROCE_PLUGIN_PATH, ::dlerror());
    return 1;
  }
  void* context = nullptr;
  tuner->init(&context, 42, 16, 2, nullptr, nullptr, nullptr);
  float table[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                       {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  uint64_t state = 12345;
  uint64_t span = static_cast<uint64_t>(rules) * 4096 + 4096;
  long chosen = 0, chunked = 0;
  for (long i = 0; i < calls; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t bytes = static_cast<size_t>((state >> 33) % span);
    int nChannels = 0;
    tuner->getCollInfo(context, ncclFuncAllReduce, bytes, 1 + static_cast<int>((state >> 20) & 1),
                       reinterpret_cast<float**>(table), 7, 3, 0, &nChannels);
    int algo = 1, proto = 2;  // NCCL's pick: the 0.0 written, else Ring/LL (18)
    for (int a = 0; a < 7; ++a) {
      for (int p = 0; p < 3; ++p) {
        if (table[a][p] == 0.0f) {
          table[a][p] = 19.0f;
          ++chosen;
          algo = a;
          proto = p;
        }
      }
    }
    if (mode != "chunk") continue;
    for (int piece = 0; piece < 3; ++piece) {
      size_t chunkSize = 131072;
      tuner->getChunkSize(context, ncclFuncAllReduce, bytes / 3, algo, proto, 1, &chunkSize);
      chunked += chunkSize != 131072;
    }
  }
  tuner->finalize(context);
  std::printf("rules %d calls %ld overrides %ld chunk sizes served %ld\n", rules, calls, chosen, chunked);
  // A policy that never overrides would measure nothing.
  return chosen > 0 && (mode != "chunk" || chunked > 0) ? 0 : 1;
}

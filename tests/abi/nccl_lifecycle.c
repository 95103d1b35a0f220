// The plugin through the life NCCL gives it, from a C process with no C++ runtime of its own. Each communicator
// opens the profiler and tuner libraries by NCCL's names (dlopen RTLD_NOW|RTLD_LOCAL, as ncclOpenProfilerPluginLib
// and the tuner's loader do), inits the profiler before the tuner (init.cc, 2.28), runs all-reduces (a tuner
// decision, then Group, Coll and KernelCh events with GPU stamps in the KernelChStop state, as src/plugin/
// profiler.cc delivers them), and at its destruction finalizes the tuner, then the profiler, closing each library
// after its last communicator (ncclTunerPluginUnload, ncclProfilerPluginUnload -> ncclClosePluginLib).
//
//   nccl_lifecycle PLUGIN_DIR unload WAIT_S
//     two communicators, each in libraries opened for it and closed after it, WAIT_S seconds apart (past the
//     writers' periods), statistics and metrics on (checkpoints every second); checks that no thread is left
//     after each last finalize and that the statistics file and the textfile hold both communicators. Run under
//     valgrind by the test command.
//   nccl_lifecycle PLUGIN_DIR run PROGRESS_FILE
//     one communicator timing all-reduces until the process is killed, publishing how many it finished by each
//     millisecond in PROGRESS_FILE (tests/abi/checkpoint_kill_test.cc kills it with SIGKILL).
//   nccl_lifecycle PLUGIN_DIR serve FIRST_COMM_ID COMMS STOP_FILE [CALLS]
//     a serving process: COMMS communicators (ids FIRST_COMM_ID, +1, ...) that time CALLS all-reduces each (20
//     unless given) and stay live until STOP_FILE exists, then are destroyed before the process exits
//     (tests/prometheus/pods_test.sh, journey_test.sh).
//
// Each all-reduce runs what the tuner left cheapest in NCCL's cost table (NCCL's own pick, Ring/Simple, unless a
// policy prefers another), and its kernel takes that choice's time: LL is fastest at 16 KiB, Simple slowest, Tree
// slower than Ring, each within +-3% per collective and +-1% per communicator (a fixed pseudo-random sequence per
// communicator id), so policies differ as they do on a real fabric and no timing is flat.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/tuner_v5.h"
#include "tests/abi/lifecycle_progress.h"

static int failures = 0;

#define CHECK(cond, ...)                   \
  do {                                     \
    if (!(cond)) {                         \
      fprintf(stderr, "FAIL %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);        \
      fputc('\n', stderr);                 \
      ++failures;                          \
    }                                      \
  } while (0)

static void logger(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NCCL_LOG_WARN) return;
  va_list args;
  va_start(args, fmt);
  fprintf(stderr, "WARN: ");
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
}

static uint64_t realtimeMs(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

// One communicator as NCCL holds it: both libraries, their tables and contexts.
struct Communicator {
  void* profilerLib;
  void* tunerLib;
  const ncclProfiler_v6_t* profiler;
  const ncclTuner_v5_t* tuner;
  void* profilerContext;
  void* tunerContext;
  uint64_t gpuClock;  // the stamps this communicator's "kernels" carry
  uint64_t noise;     // xorshift64 state: this communicator's durations
  double speed;       // this communicator's own factor (its GPUs and links)
};

// Uniform in [-1, 1).
static double jitter(struct Communicator* c) {
  c->noise ^= c->noise << 13;
  c->noise ^= c->noise >> 7;
  c->noise ^= c->noise << 17;
  return (double)(c->noise >> 11) / (double)(1ull << 52) - 1.0;
}

// A 16 KiB all-reduce's kernel time (ns) by algorithm and protocol: LL's latency wins at this size.
static const double kChoiceNs[2][3] = {
    {38000, 39000, 44000},  // Tree: LL, LL128, Simple
    {34000, 36000, 40000},  // Ring: LL, LL128, Simple
};
static const char* const kAlgoNames[2] = {"TREE", "RING"};
static const char* const kProtoNames[3] = {"LL", "LL128", "SIMPLE"};

static int create(struct Communicator* c, const char* dir, uint64_t commId) {
  char path[4096];
  memset(c, 0, sizeof(*c));
  c->gpuClock = 1000000000ull;
  c->noise = commId * 0x9e3779b97f4a7c15ull | 1u;
  c->speed = 1.0 + 0.01 * jitter(c);
  snprintf(path, sizeof(path), "%s/libnccl-profiler-roce.so", dir);
  c->profilerLib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  snprintf(path, sizeof(path), "%s/libnccl-tuner-roce.so", dir);
  c->tunerLib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(c->profilerLib != NULL && c->tunerLib != NULL, "dlopen: %s", dlerror());
  if (c->profilerLib == NULL || c->tunerLib == NULL) return 0;
  c->profiler = (const ncclProfiler_v6_t*)dlsym(c->profilerLib, "ncclProfiler_v6");
  c->tuner = (const ncclTuner_v5_t*)dlsym(c->tunerLib, "ncclTunerPlugin_v5");
  CHECK(c->profiler != NULL && c->tuner != NULL, "a plugin table is missing");
  if (c->profiler == NULL || c->tuner == NULL) return 0;
  int mask = 0;
  CHECK(c->profiler->init(&c->profilerContext, commId, &mask, "tp0", 2, 16, 3, logger) == ncclSuccess, "profiler init");
  CHECK(c->profilerContext != NULL && mask != 0, "timing is on (NCCL_ROCE_STATS set)");
  ncclNvlDomainInfo_v5_t nvl = {2, 8, 8};
  ncclTunerConstants_v5_t constants;
  memset(&constants, 0, sizeof(constants));
  CHECK(c->tuner->init(&c->tunerContext, commId, 16, 2, logger, &nvl, &constants) == ncclSuccess, "tuner init");
  return c->profilerContext != NULL && c->tunerContext != NULL;
}

// One all-reduce of 16 KiB: the tuner's decision, then its events on the GPU on one channel, taking the time of
// what ran.
static void allReduce(struct Communicator* c) {
  // NCCL's cost table: one contiguous float[algorithms][protocols], passed cast to float**. Tree and Ring are
  // offered; NCCL's own pick is Ring/Simple.
  float table[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; ++a) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; ++p) table[a][p] = (float)NCCL_ALGO_PROTO_IGNORE;
  }
  static const float kCost[2][3] = {{32.0f, 31.0f, 26.0f}, {30.0f, 25.0f, 20.0f}};
  for (int a = 0; a < 2; ++a) {
    for (int p = 0; p < 3; ++p) table[a][p] = kCost[a][p];
  }
  int channels = 0;
  c->tuner->getCollInfo(c->tunerContext, ncclFuncAllReduce, 16384, 1, (float**)table, NCCL_NUM_ALGORITHMS_V5,
                        NCCL_NUM_PROTOCOLS_V5, 0, &channels);
  int algo = NCCL_ALGO_RING, proto = NCCL_PROTO_SIMPLE;  // NCCL runs the cheapest entry left available
  for (int a = 0; a < 2; ++a) {
    for (int p = 0; p < 3; ++p) {
      if (table[a][p] >= 0 && table[a][p] < table[algo][proto]) {
        algo = a;
        proto = p;
      }
    }
  }
  const uint64_t ns = (uint64_t)(kChoiceNs[algo][proto] * c->speed * (1.0 + 0.03 * jitter(c)));

  ncclProfilerEventDescr_v6_t group, coll, channel;
  memset(&group, 0, sizeof(group));
  group.type = ncclProfileGroup;
  void* groupHandle = NULL;
  c->profiler->startEvent(c->profilerContext, &groupHandle, &group);
  memset(&coll, 0, sizeof(coll));
  coll.type = ncclProfileColl;
  coll.coll.func = "AllReduce";
  coll.coll.count = 4096;
  coll.coll.datatype = "ncclFloat32";
  coll.coll.algo = kAlgoNames[algo];
  coll.coll.proto = kProtoNames[proto];
  coll.coll.nChannels = 1;
  coll.coll.parentGroup = groupHandle;
  void* collHandle = NULL;
  c->profiler->startEvent(c->profilerContext, &collHandle, &coll);
  memset(&channel, 0, sizeof(channel));
  channel.type = ncclProfileKernelCh;
  channel.parentObj = collHandle;
  channel.kernelCh.channelId = 0;
  channel.kernelCh.pTimer = c->gpuClock;
  void* channelHandle = NULL;
  c->profiler->startEvent(c->profilerContext, &channelHandle, &channel);
  ncclProfilerEventStateArgs_v6_t stop;
  memset(&stop, 0, sizeof(stop));
  stop.kernelCh.pTimer = c->gpuClock + ns;
  c->profiler->recordEventState(channelHandle, ncclProfilerKernelChStop, &stop);
  c->profiler->stopEvent(channelHandle);
  c->profiler->stopEvent(collHandle);
  c->profiler->stopEvent(groupHandle);
  c->gpuClock += 100000;
}

// ncclCommDestroy: the tuner's finalize and unload (commDestroySync), then the profiler's (commFree).
static void destroy(struct Communicator* c) {
  CHECK(c->tuner->finalize(c->tunerContext) == ncclSuccess, "tuner finalize");
  CHECK(dlclose(c->tunerLib) == 0, "dlclose tuner: %s", dlerror());
  CHECK(c->profiler->finalize(c->profilerContext) == ncclSuccess, "profiler finalize");
  CHECK(dlclose(c->profilerLib) == 0, "dlclose profiler: %s", dlerror());
}

static int threads(void) {
  DIR* tasks = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent* e = tasks ? readdir(tasks) : NULL; e != NULL; e = readdir(tasks)) n += e->d_name[0] != '.';
  if (tasks != NULL) closedir(tasks);
  return n;
}

static char* slurp(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return NULL;
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

static int occurrences(const char* text, const char* what) {
  int n = 0;
  for (const char* at = text ? strstr(text, what) : NULL; at != NULL; at = strstr(at + 1, what)) ++n;
  return n;
}

// The one textfile (nccl-roce.<pod>.<pid>.<start>.prom) the process wrote in `dir`.
static int textfileIn(const char* dir, char* path, size_t size) {
  DIR* d = opendir(dir);
  int found = 0;
  for (struct dirent* e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "nccl-roce.", 10) != 0 || n < 5 || strcmp(e->d_name + n - 5, ".prom") != 0) continue;
    snprintf(path, size, "%s/%s", dir, e->d_name);
    ++found;
  }
  if (d != NULL) closedir(d);
  CHECK(found <= 1, "%d textfiles in %s: one process writes one", found, dir);
  return found == 1;
}

static int unloadAndReload(const char* dir, int waitSeconds) {
  char scratch[] = "/tmp/nccl-roce-lifecycle-XXXXXX";
  if (mkdtemp(scratch) == NULL) return 2;
  char prefix[1024];
  snprintf(prefix, sizeof(prefix), "%s/stats", scratch);
  const char* metricsDir = scratch;
  setenv("NCCL_ROCE_STATS", prefix, 1);
  setenv("NCCL_ROCE_METRICS", metricsDir, 1);
  setenv("NCCL_ROCE_STATS_INTERVAL", "1", 1);
  const uint64_t ids[2] = {0xa1, 0xb2};
  for (int i = 0; i < 2; ++i) {
    struct Communicator c;
    if (!create(&c, dir, ids[i])) return 1;
    for (int k = 0; k < 50; ++k) allReduce(&c);
    destroy(&c);
    CHECK(threads() == 1, "%d threads after the last communicator's finalize and dlclose: ours must be gone",
          threads());
    if (i == 0) sleep((unsigned)waitSeconds);  // past every writer's period: nothing of ours may wake up now
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s.%ld.json", prefix, (long)getpid());
  const char* stats = slurp(path);
  CHECK(stats != NULL, "no statistics file %s", path);
  CHECK(occurrences(stats, "\"comm_id\": \"0x00000000000000a1\"") == 1, "the first communicator, once");
  CHECK(occurrences(stats, "\"comm_id\": \"0x00000000000000b2\"") == 1, "the second communicator, once");
  CHECK(occurrences(stats, "\"state\": \"final\"") == 2, "both final");
  CHECK(occurrences(stats, "\"calls\": 50") == 2, "each made 50 decisions");
  CHECK(occurrences(stats, "\"count\": 50") >= 4, "each timed 50 all-reduces (and decided 50)");
  const char* metrics = textfileIn(metricsDir, path, sizeof(path)) ? slurp(path) : NULL;
  CHECK(metrics != NULL, "no textfile nccl-roce.*.prom in %s", metricsDir);
  CHECK(occurrences(metrics, "comm_id=\"0x00000000000000a1\"") > 0 &&
            occurrences(metrics, "comm_id=\"0x00000000000000b2\"") > 0,
        "the textfile lists both communicators");
  if (failures != 0 && stats != NULL) fprintf(stderr, "the statistics file:\n%s", stats);
  if (failures == 0) {
    printf("two communicators across an unload and reload: both recorded, no thread left behind\n");
    char cleanup[4200];
    snprintf(cleanup, sizeof(cleanup), "rm -rf '%s'", scratch);
    if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", scratch);
  }
  return failures == 0 ? 0 : 1;
}

static int runUntilKilled(const char* dir, const char* progressPath) {
  int fd = open(progressPath, O_RDWR);
  struct LifecycleProgress* progress =
      fd < 0 ? MAP_FAILED : mmap(NULL, sizeof(*progress), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (progress == MAP_FAILED) {
    fprintf(stderr, "cannot map %s\n", progressPath);
    return 2;
  }
  struct Communicator c;
  if (!create(&c, dir, 0xc3)) return 1;
  progress->startMs = realtimeMs();
  __atomic_store_n(&progress->ready, 1, __ATOMIC_RELEASE);
  for (uint64_t done = 1;; ++done) {
    allReduce(&c);
    uint64_t ms = realtimeMs() - progress->startMs;
    if (ms >= kLifecycleMaxMs) break;
    __atomic_store_n(&progress->doneBy[ms], done, __ATOMIC_RELEASE);
    if (done % 32 == 0) usleep(500);  // about 50,000 all-reduces a second, on one core at most
  }
  destroy(&c);
  return 0;
}

static int serveUntilStopped(const char* dir, uint64_t firstId, int comms, const char* stopFile, int calls) {
  enum { kMaxComms = 16 };
  struct Communicator c[kMaxComms];
  if (comms < 1 || comms > kMaxComms) return 2;
  for (int i = 0; i < comms; ++i) {
    if (!create(&c[i], dir, firstId + (uint64_t)i)) return 1;
    for (int k = 0; k < calls; ++k) allReduce(&c[i]);
  }
  while (access(stopFile, F_OK) != 0) usleep(50000);
  for (int i = comms - 1; i >= 0; --i) destroy(&c[i]);
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[2], "unload") == 0) return unloadAndReload(argv[1], atoi(argv[3]));
  if (argc == 4 && strcmp(argv[2], "run") == 0) return runUntilKilled(argv[1], argv[3]);
  if ((argc == 6 || argc == 7) && strcmp(argv[2], "serve") == 0) {
    return serveUntilStopped(argv[1], strtoull(argv[3], NULL, 0), atoi(argv[4]), argv[5],
                             argc == 7 ? atoi(argv[6]) : 20);
  }
  fprintf(stderr,
          "usage: %s PLUGIN_DIR unload WAIT_S\n"
          "       %s PLUGIN_DIR run PROGRESS_FILE\n"
          "       %s PLUGIN_DIR serve FIRST_COMM_ID COMMS STOP_FILE [CALLS]\n",
          argv[0], argv[0], argv[0]);
  return 2;
}

// The plugin as NCCL meets it: a C process with no C++ runtime of its own opens libnccl-{env,net,tuner}-roce.so
// by NCCL's names, drives each table through our C declarations of NCCL's headers, and never finds libstdc++ or
// libgcc_s mapped (the library carries its own). Usage: load_from_c PLUGIN_DIR
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/nccl/env_v2.h"
#include "plugin/nccl/net_v6.h"
#include "plugin/nccl/tuner_v5.h"
#include "plugin/nccl/tuner_v6.h"
#include "plugin/nccl/tuner_v7.h"

static int failures = 0;
static int warnings = 0;

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
  if (level == NCCL_LOG_WARN) ++warnings;
  va_list args;
  va_start(args, fmt);
  fprintf(stderr, "log %d: ", (int)level);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
}

static void writeFile(const char* root, const char* path, const char* text) {
  char full[4096];
  snprintf(full, sizeof(full), "%s/%s", root, path);
  for (char* slash = strchr(full + strlen(root) + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(full, 0755);
    *slash = '/';
  }
  FILE* f = fopen(full, "w");
  if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", full);
    exit(2);
  }
}

// One ConnectX-7 RoCE port as the kernel shows it: the pod's IPv4-mapped RoCE v2 GID at index 3.
static void writeOneRailMachine(const char* root) {
  const char* port = "class/infiniband/mlx5_0/ports/1/";
  char path[512];
#define PORT_FILE(name, text) (snprintf(path, sizeof(path), "%s%s", port, name), writeFile(root, path, text))
  PORT_FILE("state", "4: ACTIVE\n");
  PORT_FILE("phys_state", "5: LinkUp\n");
  PORT_FILE("link_layer", "Ethernet\n");
  PORT_FILE("rate", "400 Gb/sec (4X NDR)\n");
  PORT_FILE("gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
  PORT_FILE("gid_attrs/types/3", "RoCE v2\n");
  PORT_FILE("gid_attrs/ndevs/3", "net1\n");
#undef PORT_FILE
  writeFile(root, "class/net/net1/operstate", "up\n");
}

// NCCL's cost table for a 2-node all-reduce where it offers only Ring/LL and Ring/Simple (-1 elsewhere), as the
// contiguous float[7][3] it passes cast to float**.
static void fillTable(float table[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5], float ringLL, float ringSimple) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; ++a) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; ++p) table[a][p] = (float)NCCL_ALGO_PROTO_IGNORE;
  }
  table[NCCL_ALGO_RING][NCCL_PROTO_LL] = ringLL;
  table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE] = ringSimple;
}

typedef ncclResult_t (*GetCollInfoFn)(void*, ncclFunc_t, size_t, int, float**, int, int, int, int*);
typedef ncclResult_t (*GetChunkSizeFn)(void*, ncclFunc_t, size_t, int, int, int, size_t*);

// getChunkSize after getCollInfo, as NCCL 2.30.2+ calls them (tuner v6, v7), on a communicator of a policy whose rule
// sets 256K for large all-reduces on Ring/Simple.
static void servesTheRulesChunkSize(const char* version, void* ctx, GetCollInfoFn getCollInfo,
                                    GetChunkSizeFn getChunkSize) {
  float table[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  int channels = 0;
  // 8M over 16 channels: NCCL asks about each 512K piece with nChannels 1 and its own 2M.
  fillTable(table, 30.0f, 20.0f);
  CHECK(getCollInfo(ctx, ncclFuncAllReduce, 8 << 20, 1, (float**)table, NCCL_NUM_ALGORITHMS_V5, NCCL_NUM_PROTOCOLS_V5,
                    0, &channels) == ncclSuccess,
        "%s getCollInfo", version);
  size_t chunk = 2 << 20;
  CHECK(getChunkSize(ctx, ncclFuncAllReduce, 512 << 10, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1, &chunk) == ncclSuccess,
        "%s getChunkSize", version);
  CHECK(chunk == 256 << 10, "%s: chunk size %zu, the rule's 262144 expected", version, chunk);
  // Ring/Simple unavailable: the rule falls back to NCCL's choice (Ring/LL), and NCCL keeps its chunk size.
  fillTable(table, 30.0f, (float)NCCL_ALGO_PROTO_IGNORE);
  CHECK(getCollInfo(ctx, ncclFuncAllReduce, 8 << 20, 1, (float**)table, NCCL_NUM_ALGORITHMS_V5, NCCL_NUM_PROTOCOLS_V5,
                    0, &channels) == ncclSuccess,
        "%s getCollInfo", version);
  chunk = 32768;
  CHECK(getChunkSize(ctx, ncclFuncAllReduce, 512 << 10, NCCL_ALGO_RING, NCCL_PROTO_LL, 1, &chunk) == ncclSuccess,
        "%s getChunkSize", version);
  CHECK(chunk == 32768, "%s: after a fallback, chunk size %zu, NCCL's own 32768 expected", version, chunk);
}

static void* openPlugin(const char* dir, const char* kind) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/libnccl-%s-roce.so", dir, kind);
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(handle != NULL, "dlopen %s: %s", path, dlerror());
  return handle;
}

static int mapped(const char* name) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[8192];
  int found = 0;
  while (maps != NULL && fgets(line, sizeof(line), maps) != NULL) found |= strstr(line, name) != NULL;
  if (maps != NULL) fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
    return 2;
  }
  char root[] = "/tmp/nccl-roce-c-XXXXXX";
  if (mkdtemp(root) == NULL) return 2;
  writeOneRailMachine(root);
  setenv("NCCL_ROCE_SYSFS_ROOT", root, 1);
  unsetenv("NCCL_IB_HCA");
  unsetenv("NCCL_IB_GID_INDEX");
  unsetenv("NCCL_ROCE_POLICY");

  void* envLib = openPlugin(argv[1], "env");
  void* netLib = openPlugin(argv[1], "net");
  void* tunerLib = openPlugin(argv[1], "tuner");
  if (envLib == NULL || netLib == NULL || tunerLib == NULL) return 1;

  const ncclEnv_v2_t* env = (const ncclEnv_v2_t*)dlsym(envLib, "ncclEnvPlugin_v2");
  const ncclNet_v6_t* net = (const ncclNet_v6_t*)dlsym(netLib, "ncclNetPlugin_v6");
  const ncclTuner_v5_t* tuner = (const ncclTuner_v5_t*)dlsym(tunerLib, "ncclTunerPlugin_v5");
  CHECK(env != NULL && net != NULL && tuner != NULL, "a plugin table is missing");
  if (env == NULL || net == NULL || tuner == NULL) return 1;

  // Env plugin: the resolution of the machine above, NCCL's variables only.
  CHECK(env->init(2, 28, 9, "", logger) == ncclSuccess, "env init");
  const char* hca = env->getEnv("NCCL_IB_HCA");
  const char* gid = env->getEnv("NCCL_IB_GID_INDEX");
  CHECK(hca != NULL && strcmp(hca, "=mlx5_0:1") == 0, "NCCL_IB_HCA served as %s", hca ? hca : "(null)");
  CHECK(gid != NULL && strcmp(gid, "3") == 0, "NCCL_IB_GID_INDEX served as %s", gid ? gid : "(null)");
  CHECK(env->getEnv("NVSHMEM_HCA_LIST") == NULL, "NVSHMEM variables are not NCCL's to serve");

  // Net plugin: steps aside, so NCCL's own IB transport carries the traffic.
  int ndev = -1;
  CHECK(net->init(logger) == ncclSuccess, "net init");
  CHECK(net->devices(&ndev) == ncclSuccess && ndev == 0, "net reports %d devices", ndev);

  // Tuner: a 2-node, 16-rank communicator; a small all-reduce with only ring/LL and ring/Simple available.
  ncclNvlDomainInfo_v5_t nvl = {2, 8, 8};
  ncclTunerConstants_v5_t constants;
  memset(&constants, 0, sizeof(constants));
  void* ctx = NULL;
  CHECK(tuner->init(&ctx, 0x1234abcdULL, 16, 2, logger, &nvl, &constants) == ncclSuccess, "tuner init");
  float table[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  fillTable(table, 30.0f, 20.0f);
  int channels = 0;  // NCCL passes 0: "NCCL decides" unless the tuner says otherwise
  CHECK(tuner->getCollInfo(ctx, ncclFuncAllReduce, 4096, 1, (float**)table, NCCL_NUM_ALGORITHMS_V5,
                           NCCL_NUM_PROTOCOLS_V5, 0, &channels) == ncclSuccess,
        "getCollInfo");
  for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; ++a) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; ++p) {
      int available = (a == NCCL_ALGO_RING && (p == NCCL_PROTO_LL || p == NCCL_PROTO_SIMPLE));
      if (!available) CHECK(table[a][p] == (float)NCCL_ALGO_PROTO_IGNORE, "unavailable cell %d/%d changed", a, p);
    }
  }
  CHECK(table[NCCL_ALGO_RING][NCCL_PROTO_LL] == 0.0f, "the default policy's LL for small multi-node all-reduces");
  CHECK(channels >= 0 && channels <= 64, "nChannels %d", channels);
  CHECK(tuner->finalize(ctx) == ncclSuccess, "tuner finalize");

  // Tuner v6 (NCCL 2.30.2+): getChunkSize after getCollInfo, with the chunk size NCCL computed.
  char policy[4200];
  snprintf(policy, sizeof(policy), "%s/chunks.toml", root);
  writeFile(root, "chunks.toml",
            "[policy]\nname = \"chunks\"\n[[rule]]\ncollective = \"allreduce\"\nsize = \"1M..\"\n"
            "algorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"256K\"\n");
  setenv("NCCL_ROCE_POLICY", policy, 1);
  const ncclTuner_v6_t* v6 = (const ncclTuner_v6_t*)dlsym(tunerLib, "ncclTunerPlugin_v6");
  CHECK(v6 != NULL && v6->getChunkSize != NULL, "v6 getChunkSize");
  if (v6 != NULL && v6->getChunkSize != NULL) {
    void* ctx6 = NULL;
    CHECK(v6->init(&ctx6, 0x66, 16, 2, logger, &nvl, &constants) == ncclSuccess, "v6 init");
    servesTheRulesChunkSize("v6", ctx6, v6->getCollInfo, v6->getChunkSize);
    CHECK(v6->finalize(ctx6) == ncclSuccess, "v6 finalize");
  }
  // Tuner v7 (NCCL 2.32.6+, the newest): the same, with its five-row constants, left as NCCL passed them.
  const ncclTuner_v7_t* v7 = (const ncclTuner_v7_t*)dlsym(tunerLib, "ncclTunerPlugin_v7");
  CHECK(v7 != NULL && v7->getChunkSize != NULL, "v7 getChunkSize");
  if (v7 != NULL && v7->getChunkSize != NULL) {
    ncclTunerConstants_v7_t constants7;
    memset(&constants7, 0x5a, sizeof(constants7));
    constants7.llMaxBws[4][0] = 2.0;  // the Rubin row
    void* ctx7 = NULL;
    CHECK(v7->init(&ctx7, 0x77, 16, 2, logger, &nvl, &constants7) == ncclSuccess, "v7 init");
    CHECK(constants7.llMaxBws[4][0] == 2.0 && constants7.perChMaxNVLSTreeBws[4][2] == constants7.perChMaxTreeBws[0][0],
          "v7 init wrote into NCCL's constants");
    servesTheRulesChunkSize("v7", ctx7, v7->getCollInfo, v7->getChunkSize);
    CHECK(v7->finalize(ctx7) == ncclSuccess, "v7 finalize");
  }
  CHECK(env->finalize() == ncclSuccess, "env finalize");

  CHECK(!mapped("libstdc++"), "libstdc++ mapped: the plugin must carry its own C++ runtime");
  CHECK(!mapped("libgcc_s"), "libgcc_s mapped: the plugin must carry its own unwinder");
  CHECK(warnings == 0, "%d WARN line(s) logged", warnings);

  char cleanup[4200];
  snprintf(cleanup, sizeof(cleanup), "rm -rf '%s'", root);
  if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", root);
  if (failures == 0) printf("loaded from C: env, net and tuner tables behave; no C++ runtime mapped\n");
  return failures == 0 ? 0 : 1;
}

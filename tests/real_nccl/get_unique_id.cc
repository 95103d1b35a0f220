// A stand-in for an NCCL application's first call: dlopens a real libnccl.so.2 (never linked, so the test
// builds everywhere) and calls ncclGetUniqueId, which makes NCCL load its env plugin and read its
// bootstrap settings, without any GPU.
//   get_unique_id /usr/local/cuda/lib/libnccl.so.2
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: %s LIBNCCL: loads NCCL and calls ncclGetUniqueId, which loads the env plugin\n", argv[0]);
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LIBNCCL\n", argv[0]);
    return 2;
  }
  void* nccl = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (nccl == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], ::dlerror());
    return 3;
  }
  using GetUniqueId = int (*)(void* uniqueId);
  using GetVersion = int (*)(int* version);
  auto getUniqueId = reinterpret_cast<GetUniqueId>(::dlsym(nccl, "ncclGetUniqueId"));
  auto getVersion = reinterpret_cast<GetVersion>(::dlsym(nccl, "ncclGetVersion"));
  if (getUniqueId == nullptr || getVersion == nullptr) {
    std::fprintf(stderr, "%s lacks ncclGetUniqueId or ncclGetVersion\n", argv[1]);
    return 3;
  }
  int version = 0;
  getVersion(&version);
  char id[128];  // ncclUniqueId is 128 bytes
  int result = getUniqueId(id);
  std::printf("nccl version code %d, ncclGetUniqueId returned %d\n", version, result);
  return result == 0 ? 0 : 1;
}

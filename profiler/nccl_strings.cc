#include "profiler/nccl_strings.h"

namespace nccl_roce::profiler {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive, ignoring '_' on NCCL's side: "NVLS_TREE" equals "nvlstree".
bool sameName(const char* nccl, const char* ours) {
  for (;; ++nccl) {
    if (*nccl == '_') continue;
    if (lower(*nccl) != *ours) return false;
    if (*ours == '\0') return true;
    ++ours;
  }
}

template <size_t N>
int indexIn(const char* const (&names)[N], const char* name) {
  if (name == nullptr) return -1;
  for (size_t i = 0; i < N; ++i) {
    if (sameName(name, names[i])) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

int collectiveIndex(const char* name) {
  static const char* const kNames[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  return indexIn(kNames, name);
}

int algorithmIndex(const char* name) {
  static const char* const kNames[] = {"tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"};
  return indexIn(kNames, name);
}

int protocolIndex(const char* name) {
  static const char* const kNames[] = {"ll", "ll128", "simple"};
  return indexIn(kNames, name);
}

size_t dataTypeSize(const char* name) {
  // ncclDataType_t's names in code order; the size of each follows.
  static const char* const kNames[] = {"ncclint8",    "nccluint8",    "ncclint32",      "nccluint32",
                                       "ncclint64",   "nccluint64",   "ncclfloat16",    "ncclfloat32",
                                       "ncclfloat64", "ncclbfloat16", "ncclfloat8e4m3", "ncclfloat8e5m2"};
  int i = indexIn(kNames, name);
  return i < 0 ? 0 : dataTypeSizeOfCode(i);
}

size_t dataTypeSizeOfCode(int code) {
  static const size_t kSizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return code >= 0 && code < 12 ? kSizes[code] : 0;
}

}  // namespace nccl_roce::profiler

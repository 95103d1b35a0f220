// NCCL's names in profiler events ("AllReduce", "RING", "NVLS_TREE", "SIMPLE", "ncclFloat32") as our indices,
// without allocating: these run for every collective. NCCL passes the same static strings every time, so a
// small cache of pointers answers almost every call before any comparison.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nccl_roce::profiler {

// Tuner indices (tuner/nccl_names.h), or -1 for anything else (Send, AllToAll, an unknown name, nullptr).
int collectiveIndex(const char* name);
int algorithmIndex(const char* name);
int protocolIndex(const char* name);
// Bytes per element of an NCCL data type name, 0 when unknown.
size_t dataTypeSize(const char* name);
// Bytes per element of an NCCL data type code (ncclDataType_t, profiler v1), 0 when unknown.
size_t dataTypeSizeOfCode(int code);

// Remembers the last few (pointer, answer) pairs. Not thread safe: one per communicator, used by the thread
// that starts its collectives.
class NameCache {
 public:
  // Inline: four run per collective, and NCCL's same pointer is almost always the first entry.
  int lookup(const char* name, int (*resolve)(const char*)) {
    for (int i = 0; i < kEntries; ++i) {
      if (names_[i] == name && name != nullptr) return answers_[i];
    }
    return remember(name, resolve(name));
  }

 private:
  int remember(const char* name, int answer);
  static constexpr int kEntries = 8;
  const char* names_[kEntries] = {};
  int answers_[kEntries] = {};
  int next_ = 0;
};

}  // namespace nccl_roce::profiler

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

// Remembers answers by the name's address, in a small direct-mapped table: NCCL passes the same static strings
// every time, so after the first collective each lookup is one hash and one comparison. A collision only costs a
// new resolve. Not thread safe: one per communicator, used by the thread that starts its collectives.
class NameCache {
 public:
  int lookup(const char* name, int (*resolve)(const char*)) {
    Entry& e = entries_[slotOf(name)];
    if (e.name != name || name == nullptr) e = {name, resolve(name)};
    return e.answer;
  }

 private:
  static constexpr int kSlotBits = 3;
  static size_t slotOf(const char* name) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(name) * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
  }
  struct Entry {
    const char* name = nullptr;
    int answer = -1;
  };
  Entry entries_[1 << kSlotBits];
};

}  // namespace nccl_roce::profiler

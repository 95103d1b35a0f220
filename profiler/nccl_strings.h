// NCCL's names in profiler events ("AllReduce", "RING", "NVLS_TREE", "SIMPLE", "ncclFloat32") as our indices,
// without allocating. A Coll event's names are cached by their addresses (coll_name_cache.h), so these run
// only the first time a communicator sees a combination.
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

}  // namespace nccl_roce::profiler

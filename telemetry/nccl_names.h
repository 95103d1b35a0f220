// NCCL's collectives, algorithms, protocols and data types: their names and the indices NCCL's tuner ABI uses.
// The one table of each: policies, NCCL_ALGO/NCCL_PROTO, tuning logs, profiler events ("NVLS_TREE", "SIMPLE",
// "ncclFloat32") and statistics files all read names through it. Reading never allocates (the profiler reads a
// Coll event's names with it); unknown names are errors, never silently mapped.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nccl_roce::telemetry {

inline constexpr int kNumCollectives = 5;  // Broadcast, Reduce, AllGather, ReduceScatter, AllReduce
inline constexpr int kMaxAlgorithms = 7;   // NCCL >= 2.23 (PAT); 6 before
inline constexpr int kNumProtocols = 3;    // LL, LL128, Simple
inline constexpr int kCollAllGather = 2, kCollReduceScatter = 3, kCollAllReduce = 4;
inline constexpr int kAlgoRing = 1, kAlgoNvls = 4, kAlgoNvlsTree = 5;  // NCCL_ALGO_*
inline constexpr int kProtoLL = 0, kProtoLL128 = 1, kProtoSimple = 2;  // NCCL_PROTO_*

// Whether the tuner is given this collective's bytes over all ranks (AllGather, ReduceScatter) where NCCL's
// profiler events and Inspector report one rank's: those are multiplied by nRanks to join the tuner's buckets.
inline bool sizedOverRanks(int collective) {
  return collective == kCollAllGather || collective == kCollReduceScatter;
}

const char* collectiveName(int collective);  // "AllReduce"; "unknown" out of range
const char* algorithmName(int algorithm);    // "Tree", "NVLSTree"; "any" for -1
const char* protocolName(int protocol);      // "LL128"; "any" for -1

// Case-insensitive, '_' and '-' ignored on either side: "all_reduce", "AllReduce", "NVLS_TREE", "nvls-tree".
// nullopt for anything else (AllToAll, Send, an empty name).
std::optional<int> parseCollective(std::string_view name);
std::optional<int> parseAlgorithm(std::string_view name);
std::optional<int> parseProtocol(std::string_view name);

// "allreduce, allgather, reducescatter, broadcast, reduce": for error messages.
std::string collectiveChoices();
std::string algorithmChoices();
std::string protocolChoices();

// Bytes per element of an NCCL data type, by name ("ncclFloat32", read as the names above); 0 when unknown.
size_t dataTypeSize(std::string_view name);

}  // namespace nccl_roce::telemetry

// Collective, algorithm and protocol names as NCCL spells them (NCCL_ALGO/NCCL_PROTO parsing, tuning logs),
// mapped to the indices of NCCL's tuner ABI. Unknown names are errors, never silently mapped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nccl_roce::tuner {

inline constexpr int kNumCollectives = 5;  // Broadcast, Reduce, AllGather, ReduceScatter, AllReduce
inline constexpr int kMaxAlgorithms = 7;   // NCCL >= 2.23 (PAT); 6 before
inline constexpr int kNumProtocols = 3;    // LL, LL128, Simple
inline constexpr int kCollAllGather = 2, kCollReduceScatter = 3, kCollAllReduce = 4;
inline constexpr int kAlgoRing = 1, kAlgoNvls = 4, kAlgoNvlsTree = 5;  // NCCL_ALGO_*
inline constexpr int kProtoLL = 0, kProtoLL128 = 1, kProtoSimple = 2;  // NCCL_PROTO_*

// Whether the tuner is given this collective's bytes over all ranks (AllGather, ReduceScatter) where NCCL's
// profiler events and Inspector report one rank's: those are multiplied by nRanks to join the tuner's buckets.
inline bool sizedOverRanks(int collective) { return collective == kCollAllGather || collective == kCollReduceScatter; }

const char* collectiveName(int collective);  // "AllReduce"
const char* algorithmName(int algorithm);    // "Tree", "NVLSTree"; "any" for -1
const char* protocolName(int protocol);      // "LL128"; "any" for -1

// Case-insensitive; '_' and '-' ignored ("all_reduce", "AllReduce", "nvls_tree", "NVLSTree").
std::optional<int> parseCollective(std::string_view name);
std::optional<int> parseAlgorithm(std::string_view name);
std::optional<int> parseProtocol(std::string_view name);

// "allreduce, allgather, reducescatter, broadcast, reduce": for error messages.
std::string collectiveChoices();
std::string algorithmChoices();
std::string protocolChoices();

}  // namespace nccl_roce::tuner

#include "policy/nccl_availability.h"

#include "telemetry/nccl_names.h"

namespace nccl_roce::policy {

namespace {

// ncclFunc_t bits and NCCL's algorithm indices (docs/nccl-facts.md, "Indices and names").
constexpr uint32_t kBroadcast = 1u << 0, kReduce = 1u << 1, kAllGather = 1u << 2, kReduceScatter = 1u << 3,
                   kAllReduce = 1u << 4;
enum { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat };
constexpr int kSimple = 2;

}  // namespace

// Read in NCCL's ncclTopoTuneModel, src/graph/tuning.cc, and the same at every tag from v2.21.5-1 to v2.30.7-1
// (line numbers of v2.30.7-1): its per-collective loop skips every algorithm but Ring for Broadcast and Reduce
// (:294), every algorithm but PAT, Ring, NVLS and CollNetDirect for AllGather and ReduceScatter (:295-297; PAT
// joined the list in v2.23.4-1, when it was added), and PAT for AllReduce (:298). A skipped entry keeps its
// bandwidth of 0 (the communicator starts zeroed), and ncclTopoGetAlgoTime (:634-636) turns that into a cost of -1.
uint32_t collectivesOffered(int algorithm) {
  switch (algorithm) {
    case kRing:
      return kBroadcast | kReduce | kAllGather | kReduceScatter | kAllReduce;
    case kTree:
    case kCollNetChain:
    case kNvlsTree:
      return kAllReduce;
    case kCollNetDirect:
    case kNvls:
      return kAllGather | kReduceScatter | kAllReduce;
    case kPat:
      return kAllGather | kReduceScatter;
    default:
      return 0;
  }
}

// Same function: NVLS and NVLSTree skip every protocol but Simple (:301), PAT too (:302-303), and CollNetDirect
// and CollNetChain get a bandwidth of 0 ("Not used") for every protocol but Simple (:338-339).
bool protocolOffered(int algorithm, int protocol) {
  if (algorithm < 0 || algorithm >= telemetry::kMaxAlgorithms || protocol < 0 || protocol >= telemetry::kNumProtocols)
    return false;
  return algorithm == kTree || algorithm == kRing || protocol == kSimple;
}

// Same function: "Disable NVLS Tree on a single node" (:502, since v2.24.3-1; v2.21.5-1 to v2.23.4-1 clear its
// algoEnable entry when nNodes == 1 in the same way). Every other algorithm's node constraint depends on the
// machine (NVLS across nodes needs CollNet, :504-506), so it is not a fact about every machine.
ValueRange nodesOffered(int algorithm) {
  ValueRange all;
  if (algorithm == kNvlsTree) all.lo = 2;
  return all;
}

std::string collectiveList(uint32_t collectives) {
  std::string out;
  // All-reduce first, as the docs list them.
  for (int c : {telemetry::kCollAllReduce, telemetry::kCollAllGather, telemetry::kCollReduceScatter, 0, 1}) {
    if (collectives & (1u << c)) out += (out.empty() ? "" : ", ") + std::string(telemetry::collectiveName(c));
  }
  return out;
}

std::string protocolsOfferedList(int algorithm) {
  std::string out;
  for (int p = 0; p < telemetry::kNumProtocols; ++p) {
    if (protocolOffered(algorithm, p)) out += (out.empty() ? "" : ", ") + std::string(telemetry::protocolName(p));
  }
  return out;
}

}  // namespace nccl_roce::policy

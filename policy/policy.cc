#include "policy/policy.h"

namespace nccl_roce::policy {

bool Rule::sameSelectorsAs(const Rule& other) const {
  return collectives == other.collectives && nodes == other.nodes && ranks == other.ranks && pipeOps == other.pipeOps &&
         regBuff == other.regBuff;
}

const char* designName(ExperimentDesign design) {
  return design == ExperimentDesign::kSwitchback ? "switchback" : "per-communicator";
}

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

bool ChunkSizes::any() const {
  for (const telemetry::ChunkSize& c : byProtocol) {
    if (!c.isNccl()) return true;
  }
  return false;
}

ChunkSizes ChunkSizes::all(const telemetry::ChunkSize& chunk) {
  ChunkSizes out;
  for (telemetry::ChunkSize& c : out.byProtocol) c = chunk;
  return out;
}

bool ChunkSizes::operator==(const ChunkSizes& o) const {
  for (int p = 0; p < telemetry::kNumProtocols; ++p) {
    if (byProtocol[p] != o.byProtocol[p]) return false;
  }
  return true;
}

}  // namespace nccl_roce::policy

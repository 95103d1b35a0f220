#include "tuner/policy.h"

namespace nccl_roce::tuner {

bool Rule::sameSelectorsAs(const Rule& other) const {
  return collectives == other.collectives && nodes == other.nodes && ranks == other.ranks &&
         pipeOps == other.pipeOps && regBuff == other.regBuff;
}

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace nccl_roce::tuner

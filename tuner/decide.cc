#include "tuner/decide.h"

#include <limits>

namespace nccl_roce::tuner {

bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol) {
  if (!table.valid()) return false;
  // Row-major over algorithms, strict minimum: the first of equal costs wins, as in NCCL.
  const int cells = table.numAlgo * table.numProto;
  float best = std::numeric_limits<float>::infinity();
  int found = -1;
  for (int i = 0; i < cells; ++i) {
    float cost = table.entries[i];
    bool better = cost >= 0.0f && cost < best;
    best = better ? cost : best;
    found = better ? i : found;
  }
  if (found < 0) return false;
  *algorithm = found / table.numProto;
  *protocol = found % table.numProto;
  return true;
}

}  // namespace nccl_roce::tuner

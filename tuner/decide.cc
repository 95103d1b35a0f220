#include "tuner/decide.h"

#include <cstring>

namespace nccl_roce::tuner {

bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol) {
  if (!table.valid()) return false;
  // Row-major over algorithms, strict minimum: the first of equal costs wins, as in NCCL. Bit patterns compared
  // as in detail::cheapestIn: negative, NaN and +inf entries are never below the bits of +inf.
  const int cells = table.numAlgo * table.numProto;
  uint32_t best = 0x7f800000u;
  int found = -1;
  for (int i = 0; i < cells; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &table.entries[i], sizeof(bits));
    bool better = bits < best;
    best = better ? bits : best;
    found = better ? i : found;
  }
  if (found < 0) return false;
  *algorithm = found / table.numProto;
  *protocol = found % table.numProto;
  return true;
}

}  // namespace nccl_roce::tuner

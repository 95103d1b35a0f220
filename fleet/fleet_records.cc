#include "fleet/fleet_records.h"

#include "common/strings.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::fleet {

uint64_t cellOf(int collective, int bucket) {
  return static_cast<uint64_t>(collective) << 8 | static_cast<uint64_t>(bucket & 0xff);
}
int collectiveOfCell(uint64_t cell) { return static_cast<int>(cell >> 8); }
int bucketOfCell(uint64_t cell) { return static_cast<int>(cell & 0xff); }

std::string describeCell(uint64_t cell) {
  int bucket = bucketOfCell(cell);
  uint64_t lo = bucket == 0 ? 0 : uint64_t{1} << bucket;
  return std::string(tuner::collectiveName(collectiveOfCell(cell))) + " " + formatByteSize(lo) + "-" +
         formatByteSize(uint64_t{1} << (bucket + 1));
}

}  // namespace nccl_roce::fleet

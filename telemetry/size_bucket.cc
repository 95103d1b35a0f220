#include "telemetry/size_bucket.h"

#include "common/strings.h"

namespace nccl_roce::telemetry {

uint64_t bucketMinBytes(int bucket) {
  return bucket <= 0 ? 0 : uint64_t{1} << bucket;
}

uint64_t bucketMaxBytes(int bucket) {
  return bucket >= 63 ? UINT64_MAX : (uint64_t{2} << bucket) - 1;
}

std::string bucketLabel(int bucket) {
  return formatByteSize(bucketMinBytes(bucket)) + "-" +
         (bucket >= 63 ? std::string("16E") : formatByteSize(bucketMaxBytes(bucket) + 1));
}

}  // namespace nccl_roce::telemetry

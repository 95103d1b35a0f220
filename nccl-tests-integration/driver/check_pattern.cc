#include "nccl-tests-integration/driver/check_pattern.h"

namespace nccl_roce::driver {

ExpectedSums::ExpectedSums(int nranks) {
  for (size_t i = 0; i < 16; ++i) {
    double sum = 0;
    for (int r = 0; r < nranks; ++r) sum += inputValue(i, r);
    sums_[i] = sum;
  }
}

}  // namespace nccl_roce::driver

// The cost table NCCL hands getCollInfo for a 2-node all-reduce, as its float** view: rows Tree, Ring,
// CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT; columns LL, LL128, Simple; -1 where NCCL offers nothing.
#pragma once

namespace nccl_roce::testing {

struct NcclCostTable {
  float cells[7][3] = {{20, 25, 30}, {18, 21, 26}, {-1, -1, -1}, {-1, -1, -1},
                       {-1, -1, 40}, {-1, -1, 35}, {-1, -1, -1}};
  float** ptr() { return reinterpret_cast<float**>(cells); }
};

}  // namespace nccl_roce::testing

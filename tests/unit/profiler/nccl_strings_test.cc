// The names NCCL's profiler events carry, as NCCL 2.24-2.31 spell them (ncclFuncToString, ncclAlgoToString,
// ncclProtoToString, ncclDatatypeToString).
#include "profiler/nccl_strings.h"

#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

TEST(NcclStrings, NamesAsNcclWritesThem) {
  EXPECT_EQ(collectiveIndex("AllReduce"), 4);
  EXPECT_EQ(collectiveIndex("ReduceScatter"), 3);
  EXPECT_EQ(collectiveIndex("Broadcast"), 0);
  EXPECT_EQ(collectiveIndex("AllToAll"), -1);
  EXPECT_EQ(collectiveIndex("SendRecv"), -1);
  EXPECT_EQ(algorithmIndex("TREE"), 0);
  EXPECT_EQ(algorithmIndex("RING"), 1);
  EXPECT_EQ(algorithmIndex("COLLNET_DIRECT"), 2);
  EXPECT_EQ(algorithmIndex("COLLNET_CHAIN"), 3);
  EXPECT_EQ(algorithmIndex("NVLS"), 4);
  EXPECT_EQ(algorithmIndex("NVLS_TREE"), 5);
  EXPECT_EQ(algorithmIndex("PAT"), 6);
  EXPECT_EQ(algorithmIndex("Unknown"), -1);
  EXPECT_EQ(protocolIndex("LL"), 0);
  EXPECT_EQ(protocolIndex("LL128"), 1);
  EXPECT_EQ(protocolIndex("SIMPLE"), 2);
  EXPECT_EQ(protocolIndex(nullptr), -1);
  EXPECT_EQ(dataTypeSize("ncclFloat32"), 4u);
  EXPECT_EQ(dataTypeSize("ncclBfloat16"), 2u);
  EXPECT_EQ(dataTypeSize("ncclUint64"), 8u);
  EXPECT_EQ(dataTypeSize("ncclFloat8e4m3"), 1u);
  EXPECT_EQ(dataTypeSize("ncclNotAType"), 0u);
  EXPECT_EQ(dataTypeSizeOfCode(7), 4u);  // ncclFloat32
  EXPECT_EQ(dataTypeSizeOfCode(12), 0u);
}

}  // namespace
}  // namespace nccl_roce::profiler

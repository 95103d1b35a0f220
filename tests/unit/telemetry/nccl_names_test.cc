// NCCL's names as each place spells them: NCCL's profiler events (ncclFuncToString, ncclAlgoToString,
// ncclProtoToString, ncclDatatypeToString in NCCL 2.24-2.31), policies and NCCL_ALGO/NCCL_PROTO, and the
// statistics file, all read through the one table.
#include "telemetry/nccl_names.h"

#include <gtest/gtest.h>

namespace nccl_roce::telemetry {
namespace {

TEST(NcclNames, ProfilerEventsAsNcclWritesThem) {
  EXPECT_EQ(parseCollective("AllReduce"), 4);
  EXPECT_EQ(parseCollective("ReduceScatter"), 3);
  EXPECT_EQ(parseCollective("Broadcast"), 0);
  EXPECT_EQ(parseAlgorithm("TREE"), 0);
  EXPECT_EQ(parseAlgorithm("RING"), 1);
  EXPECT_EQ(parseAlgorithm("COLLNET_DIRECT"), 2);
  EXPECT_EQ(parseAlgorithm("COLLNET_CHAIN"), 3);
  EXPECT_EQ(parseAlgorithm("NVLS"), 4);
  EXPECT_EQ(parseAlgorithm("NVLS_TREE"), 5);
  EXPECT_EQ(parseAlgorithm("PAT"), 6);
  EXPECT_EQ(parseProtocol("LL"), 0);
  EXPECT_EQ(parseProtocol("LL128"), 1);
  EXPECT_EQ(parseProtocol("SIMPLE"), 2);
  EXPECT_EQ(dataTypeSize("ncclFloat32"), 4u);
  EXPECT_EQ(dataTypeSize("ncclBfloat16"), 2u);
  EXPECT_EQ(dataTypeSize("ncclUint64"), 8u);
  EXPECT_EQ(dataTypeSize("ncclFloat8e4m3"), 1u);
}

TEST(NcclNames, PoliciesAndVariablesAsUsersWriteThem) {
  EXPECT_EQ(parseCollective("all_reduce"), 4);
  EXPECT_EQ(parseCollective("allreduce"), 4);
  EXPECT_EQ(parseCollective("reduce-scatter"), 3);
  EXPECT_EQ(parseAlgorithm("nvls_tree"), 5);
  EXPECT_EQ(parseAlgorithm("NVLSTree"), 5);
  EXPECT_EQ(parseAlgorithm("collnet-direct"), 2);
  EXPECT_EQ(parseProtocol("simple"), 2);
  EXPECT_EQ(parseProtocol("ll128"), 1);
}

TEST(NcclNames, WhatNoTableHoldsIsUnknown) {
  EXPECT_EQ(parseCollective("AllToAll"), std::nullopt);
  EXPECT_EQ(parseCollective("SendRecv"), std::nullopt);
  EXPECT_EQ(parseCollective("AllReduceX"), std::nullopt);
  EXPECT_EQ(parseCollective("AllReduc"), std::nullopt);
  EXPECT_EQ(parseCollective(""), std::nullopt);
  EXPECT_EQ(parseCollective("__"), std::nullopt);
  EXPECT_EQ(parseAlgorithm("Unknown"), std::nullopt);
  EXPECT_EQ(parseProtocol("LL12"), std::nullopt);
  EXPECT_EQ(dataTypeSize("ncclNotAType"), 0u);
  EXPECT_EQ(dataTypeSize(""), 0u);
}

TEST(NcclNames, NamesAndChoicesAreWrittenOneWay) {
  EXPECT_STREQ(collectiveName(4), "AllReduce");
  EXPECT_STREQ(algorithmName(5), "NVLSTree");
  EXPECT_STREQ(algorithmName(-1), "any");
  EXPECT_STREQ(algorithmName(7), "unknown");
  EXPECT_STREQ(protocolName(2), "Simple");
  EXPECT_EQ(protocolChoices(), "ll, ll128, simple");
  EXPECT_EQ(algorithmChoices(), "tree, ring, collnetdirect, collnetchain, nvls, nvlstree, pat");
  for (int c = 0; c < kNumCollectives; ++c) EXPECT_EQ(parseCollective(collectiveName(c)), c);
  for (int a = 0; a < kMaxAlgorithms; ++a) EXPECT_EQ(parseAlgorithm(algorithmName(a)), a);
  for (int p = 0; p < kNumProtocols; ++p) EXPECT_EQ(parseProtocol(protocolName(p)), p);
}

}  // namespace
}  // namespace nccl_roce::telemetry

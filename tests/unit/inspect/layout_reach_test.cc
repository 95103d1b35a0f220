// Which communicators of a serving job cross RoCE, and whether a tuner decides their traffic: the operator's first
// question about nccl-roce (docs/quickstart.md, "Which layouts it helps"), for the layouts vLLM and SGLang run.
#include "inspect/layout_reach.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nccl_roce::inspect {
namespace {

using ::testing::HasSubstr;

const CommunicatorReach& group(const std::vector<CommunicatorReach>& reach, const std::string& name) {
  for (const CommunicatorReach& r : reach) {
    if (r.group == name) return r;
  }
  static const CommunicatorReach none;
  ADD_FAILURE() << "no " << name << " communicators";
  return none;
}

TEST(LayoutReach, TensorParallelAcrossNodesPutsTunedAllReducesOnRoce) {
  Layout l{16, 1, 1, false, 8};  // TP16 over two 8-GPU nodes
  auto reach = layoutReach(l);
  ASSERT_TRUE(reach.isOk());
  const CommunicatorReach& tp = group(*reach, "tensor parallel");
  EXPECT_EQ(tp.count, 1);
  EXPECT_EQ(tp.spanning, 1);
  EXPECT_TRUE(tp.tuned);
  EXPECT_THAT(layoutReachText(l, *reach), HasSubstr("policies and A/B experiments act on the network traffic"));
}

// The issue's own layout: the all-reduces stay on NVLink, the stages' sends cross RoCE untuned.
TEST(LayoutReach, TensorParallelInANodeAndPipelineAcrossLeavesOnlyTheResolver) {
  Layout l{8, 2, 1, false, 8};
  auto reach = layoutReach(l);
  ASSERT_TRUE(reach.isOk());
  const CommunicatorReach& tp = group(*reach, "tensor parallel");
  EXPECT_EQ(tp.count, 2);
  EXPECT_EQ(tp.spanning, 0);
  const CommunicatorReach& pp = group(*reach, "pipeline parallel");
  EXPECT_EQ(pp.count, 8) << "one per tensor-parallel rank";
  EXPECT_EQ(pp.spanning, 8);
  EXPECT_FALSE(pp.tuned);
  std::string text = layoutReachText(l, *reach);
  EXPECT_THAT(text, HasSubstr("layout: TP8 x PP2 x DP1 on 2 nodes of 8 GPUs\n"));
  EXPECT_THAT(text, HasSubstr("pipeline parallel: 8 communicators of 2 ranks, send and receive between stages; "
                              "crosses RoCE; never asked of a tuner, not timed\n"));
  EXPECT_THAT(text, HasSubstr("adopt the resolver, leave policies at their default"));
}

TEST(LayoutReach, ExpertParallelAcrossNodesIsAllToAllNoTunerDecides) {
  Layout l{8, 1, 2, true, 8};  // DP2 x TP8 with experts over all 16
  auto reach = layoutReach(l);
  ASSERT_TRUE(reach.isOk());
  const CommunicatorReach& ep = group(*reach, "expert parallel");
  EXPECT_EQ(ep.size, 16);
  EXPECT_EQ(ep.spanning, 1);
  EXPECT_FALSE(ep.tuned);
  EXPECT_EQ(group(*reach, "tensor parallel").spanning, 0);
}

TEST(LayoutReach, OneNodeCrossesNothing) {
  Layout l{4, 2, 1, false, 8};
  auto reach = layoutReach(l);
  ASSERT_TRUE(reach.isOk());
  for (const CommunicatorReach& r : *reach) EXPECT_EQ(r.spanning, 0) << r.group;
  EXPECT_THAT(layoutReachText(l, *reach), HasSubstr("nothing crosses RoCE"));
}

// Tensor parallel of 16 on nodes of 4: each communicator spans four nodes; pipeline stages too.
TEST(LayoutReach, CountsEveryCommunicatorThatSpansNodes) {
  Layout l{2, 4, 2, false, 4};  // 16 GPUs, 4 nodes: a pipeline of 4 stages of 2 spans two nodes
  auto reach = layoutReach(l);
  ASSERT_TRUE(reach.isOk());
  EXPECT_EQ(group(*reach, "tensor parallel").count, 8);
  EXPECT_EQ(group(*reach, "tensor parallel").spanning, 0);
  EXPECT_EQ(group(*reach, "pipeline parallel").count, 4);
  EXPECT_EQ(group(*reach, "pipeline parallel").spanning, 4);
  EXPECT_EQ(group(*reach, "data parallel").count, 8);
  EXPECT_EQ(group(*reach, "data parallel").spanning, 8);
}

TEST(LayoutReach, ALayoutThatDoesNotFillWholeNodesIsRefused) {
  auto reach = layoutReach(Layout{12, 1, 1, false, 8});
  ASSERT_FALSE(reach.isOk());
  EXPECT_EQ(reach.status().message(), "12 GPUs do not fill whole nodes of 8");
}

}  // namespace
}  // namespace nccl_roce::inspect

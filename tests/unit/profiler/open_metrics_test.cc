// The textfile node-exporter reads: histogram lines per communicator and key with cumulative buckets ending in
// +Inf = count, sum in seconds, labels escaped, dropped events as a counter.
#include "profiler/open_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nccl_roce::profiler {
namespace {

using ::testing::HasSubstr;

CommunicatorTimings decodeComm() {
  CommunicatorTimings c;
  c.commId = 0x1f2e3d4c5b6a7980ull;
  c.nNodes = 2;
  c.nRanks = 16;
  c.arm = "candidate";
  c.policy = "fit \"v2\"";
  c.policyHash = "0x9c1d";
  TimingTable table;
  CellKey key = tuner::cellKey(4, 65536, 1, 0, 4);
  key.source = TimingSource::kKernelGpu;
  for (uint64_t us : {30, 40, 40, 300}) table.record(table.entryFor(key), us * 1000);
  c.entries = table.entries();
  c.rules = {"decode-ll"};
  c.dropped = {{Drop::kMissingParent, 3}};
  return c;
}

TEST(OpenMetrics, HistogramsAreCumulativeInSecondsWithInspectorsLabelsAndOurs) {
  std::string text = renderOpenMetrics("node-a", {decodeComm()});
  EXPECT_EQ(text.rfind("# TYPE nccl_roce_collective_duration_seconds histogram\n", 0), 0u);
  std::string labels =
      "node=\"node-a\",comm_id=\"0x1f2e3d4c5b6a7980\",n_nodes=\"2\",nranks=\"16\",collective=\"AllReduce\","
      "message_size=\"64K-128K\",algo_proto=\"Ring_LL\",channels=\"4\",timing_source=\"kernel_gpu\","
      "arm=\"candidate\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\",rule=\"decode-ll\"";
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"2e-05\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"5e-05\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"0.0005\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_count{" + labels + "} 4\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_sum{" + labels + "} 0.00041\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_profiler_dropped_events_total{node=\"node-a\",comm_id=\"0x1f2e3d4c5b6a7980\","
                              "reason=\"missing_parent\"} 3\n"));
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(OpenMetrics, BucketBoundsRunOneTwoFiveFromAMicrosecondToTenSeconds) {
  const std::vector<double>& b = exportedBucketBoundsSeconds();
  ASSERT_EQ(b.size(), 22u);
  EXPECT_DOUBLE_EQ(b.front(), 1e-6);
  EXPECT_DOUBLE_EQ(b[1], 2e-6);
  EXPECT_DOUBLE_EQ(b.back(), 10.0);
}

TEST(OpenMetrics, NoCommunicatorsIsAValidEmptyFile) {
  std::string text = renderOpenMetrics("n", {});
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_profiler_dropped_events_total counter"));
  EXPECT_EQ(text.find("_bucket"), std::string::npos);
}

}  // namespace
}  // namespace nccl_roce::profiler

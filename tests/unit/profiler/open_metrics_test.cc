// The textfile node-exporter reads: per communicator and rank, the count and bin sum `ab --prometheus` decides on
// and the tuner's decisions, within a series budget; per arm, histograms with cumulative buckets ending in
// +Inf = count and sums in seconds; dropped events as a counter; labels escaped.
#include "profiler/open_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "telemetry/chunk_size.h"

namespace nccl_roce::profiler {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;


CommunicatorTimings decodeComm(uint64_t commId = 0x1f2e3d4c5b6a7980ull, int rank = 3) {
  CommunicatorTimings c;
  c.commId = commId;
  c.nNodes = 2;
  c.nRanks = 16;
  c.rank = rank;
  c.experiment = "decode-ll";
  c.experimentHash = "0x51a7";
  c.arm = "candidate";
  c.policy = "fit \"v2\"";
  c.policyHash = "0x9c1d";
  TimingTable table;
  telemetry::CellKey key = telemetry::cellKey(4, 65536, 1, 0, 4);
  key.source = telemetry::TimingSource::kKernelGpu;
  for (uint64_t us : {30, 40, 40, 300}) table.record(table.entryFor(key), us * 1000);
  c.entries = table.entries();
  c.rules = {"decode-ll"};
  c.decisions = {DecisionCount{4, 16, "Ring", "LL", 0, 0, "rule", "decode-ll", 4}};
  c.dropped = {{Drop::kMissingParent, 3}};
  return c;
}

const char* kComm =
    "experiment=\"decode-ll\",experiment_hash=\"0x51a7\",arm=\"candidate\",policy=\"fit \\\"v2\\\"\","
    "policy_hash=\"0x9c1d\",comm_id=\"0x1f2e3d4c5b6a7980\",rank=\"3\",nranks=\"16\",n_nodes=\"2\"";

// The series of one metric name in a rendering.
size_t seriesOf(const std::string& text, const std::string& metric) {
  size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) n += line.rfind(metric + "{", 0) == 0;
  return n;
}

TEST(OpenMetrics, CarriesTheCountAndBinSumAbDecidesOnPerCommunicatorRankAndCell) {
  std::string text = renderOpenMetrics({"node-a", 1234}, {decodeComm()});
  std::string cell = std::string(kComm) + ",collective=\"AllReduce\",message_size=\"64K-128K\",timing_source=\"kernel_gpu\"";
  uint64_t bins = 0;
  for (uint64_t us : {30, 40, 40, 300}) bins += static_cast<uint64_t>(telemetry::LogHistogram::binOf(us * 1000));
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_ab_log_duration summary\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_count{" + cell + "} 4\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_sum{" + cell + "} " + std::to_string(bins) + "\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_tuner_decisions_total{" + std::string(kComm) +
                              ",collective=\"AllReduce\",message_size=\"64K-128K\",algorithm=\"Ring\",protocol=\"LL\","
                              "channels=\"0\",chunk_size=\"0\",source=\"rule\",rule=\"decode-ll\"} 4\n"));
  EXPECT_EQ(seriesOf(text, "nccl_roce_ab_omitted_cells"), 0u) << "within the budget";
}

// A chunk size reads as the statistics file writes it: bytes as a number, a factor of NCCL's own as the policy
// writes it. It adds no series: a rule sets one per protocol, and rule and protocol are labels already.
TEST(OpenMetrics, ChunkSizesAreLabelledAsTheStatisticsFileWritesThem) {
  CommunicatorTimings c = decodeComm();
  c.entries[0].key.chunkSize = 262144;
  c.decisions[0].chunkSize = telemetry::ChunkSize::scaled(1).code();
  std::string text = renderOpenMetrics({"node-a", 1234}, {c});
  EXPECT_THAT(text, HasSubstr("algorithm=\"Ring\",protocol=\"LL\",channels=\"0\",chunk_size=\"x2\",source=\"rule\""));
  EXPECT_THAT(text, HasSubstr("algo_proto=\"Ring_LL\",chunk_size=\"262144\",rule=\"decode-ll\""));
  EXPECT_EQ(seriesOf(text, "nccl_roce_collective_duration_seconds_count"),
            seriesOf(renderOpenMetrics({"node-a", 1234}, {decodeComm()}), "nccl_roce_collective_duration_seconds_count"));
}

// A duration at or below 0.1 us is one the clock could not resolve: `ab` drops it from a statistics file and counts
// it, so the textfile leaves it out of the count and sum and counts it, and both paths give the same report.
TEST(OpenMetrics, ZeroDurationsAreLeftOutOfTheCountAndCountedApart) {
  CommunicatorTimings c = decodeComm();
  TimingTable table;
  telemetry::CellKey key = c.entries[0].key;
  for (uint64_t ns : {40000, 0, 0, 100}) table.record(table.entryFor(key), ns);
  c.entries = table.entries();
  std::string text = renderOpenMetrics({"node-a", 1234}, {c});
  std::string cell = std::string(kComm) + ",collective=\"AllReduce\",message_size=\"64K-128K\",timing_source=\"kernel_gpu\"";
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_count{" + cell + "} 1\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_sum{" + cell + "} " +
                              std::to_string(telemetry::LogHistogram::binOf(40000)) + "\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_ab_zero_durations_total counter\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_zero_durations_total{" + std::string(kComm) + "} 3\n"));
  EXPECT_EQ(seriesOf(renderOpenMetrics({"node-a", 1234}, {decodeComm()}), "nccl_roce_ab_zero_durations_total"), 0u)
      << "absent when none";
}

TEST(OpenMetrics, HistogramsAreMergedPerArmAndCumulativeInSeconds) {
  CommunicatorTimings other = decodeComm(0x22, 0);  // a second communicator of the same arm in this process
  std::string text = renderOpenMetrics({"node-a", 1234}, {decodeComm(), other});
  EXPECT_EQ(text.rfind("# TYPE nccl_roce_ab_log_duration summary\n", 0), 0u);
  std::string labels =
      "node=\"node-a\",pid=\"1234\",experiment=\"decode-ll\",arm=\"candidate\",policy=\"fit \\\"v2\\\"\","
      "policy_hash=\"0x9c1d\",n_nodes=\"2\",collective=\"AllReduce\",message_size=\"64K-128K\",algo_proto=\"Ring_LL\","
      "chunk_size=\"0\",rule=\"decode-ll\",timing_source=\"kernel_gpu\"";
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_collective_duration_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"2e-05\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"5e-05\"} 6\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"0.0005\"} 8\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} 8\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_count{" + labels + "} 8\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_collective_duration_seconds_sum{" + labels + "} 0.00082\n"));
  EXPECT_EQ(seriesOf(text, "nccl_roce_collective_duration_seconds_count"), 1u) << "one arm: one histogram per cell";
  EXPECT_EQ(seriesOf(text, "nccl_roce_ab_log_duration_count"), 2u) << "but ab's statistics per communicator";
  EXPECT_THAT(text, HasSubstr("nccl_roce_profiler_dropped_events_total{node=\"node-a\",comm_id=\"0x1f2e3d4c5b6a7980\","
                              "rank=\"3\",reason=\"missing_parent\"} 3\n"));
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

// A communicator timing every bucket of two collectives would write 2 x 64 x 3 series: past the budget, the
// cells that do not fit are left out (in order of collective and size) and counted.
TEST(OpenMetrics, ACommunicatorsSeriesStayWithinItsBudget) {
  CommunicatorTimings c = decodeComm();
  TimingTable table;
  c.decisions.clear();
  for (int collective : {2, 4}) {
    for (int bucket = 0; bucket < 40; ++bucket) {
      telemetry::CellKey key = telemetry::cellKey(collective, uint64_t{1} << bucket, 1, 0, 0);
      key.source = telemetry::TimingSource::kKernelGpu;
      table.record(table.entryFor(key), 5000);
      c.decisions.push_back(DecisionCount{collective, bucket, "Ring", "LL", 0, 0, "nccl", "", 1});
    }
  }
  c.entries = table.entries();
  c.rules.clear();
  std::string text = renderOpenMetrics({"n", 1}, {c});
  size_t written = seriesOf(text, "nccl_roce_ab_log_duration_count") + seriesOf(text, "nccl_roce_ab_log_duration_sum") +
                   seriesOf(text, "nccl_roce_tuner_decisions_total");
  EXPECT_EQ(written, static_cast<size_t>(kAbSeriesPerCommunicator / 3 * 3)) << "whole cells of 3 series each";
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_omitted_cells{" + std::string(kComm) + "} " +
                              std::to_string(80 - kAbSeriesPerCommunicator / 3) + "\n"));
  EXPECT_THAT(text, HasSubstr("collective=\"AllGather\",message_size=\"0-2\""));
  EXPECT_THAT(text, Not(HasSubstr("nccl_roce_ab_log_duration_count{" + std::string(kComm) + ",collective=\"AllReduce\"")))
      << "AllGather's cells come first";
}

TEST(OpenMetrics, SizeBucketsAreLabelledAsTheStatisticsFileNamesThem) {
  EXPECT_EQ(messageSizeLabel(0), "0-2");
  EXPECT_EQ(messageSizeLabel(16), "64K-128K");
  EXPECT_EQ(messageSizeLabel(63), "8E-16E");
}

TEST(OpenMetrics, BucketBoundsRunOneTwoFiveFromAMicrosecondToTenSeconds) {
  const std::vector<double>& b = exportedBucketBoundsSeconds();
  ASSERT_EQ(b.size(), 22u);
  EXPECT_DOUBLE_EQ(b.front(), 1e-6);
  EXPECT_DOUBLE_EQ(b[1], 2e-6);
  EXPECT_DOUBLE_EQ(b.back(), 10.0);
}

TEST(OpenMetrics, NoCommunicatorsIsAValidEmptyFile) {
  std::string text = renderOpenMetrics({"n", 1}, {});
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_profiler_dropped_events_total counter"));
  EXPECT_EQ(text.find("_bucket"), std::string::npos);
}

}  // namespace
}  // namespace nccl_roce::profiler

// The textfile node-exporter reads: per communicator and rank, the count and bin sum `ab --prometheus` decides on
// and the tuner's decisions, within a series budget; per arm, histograms with cumulative buckets ending in
// +Inf = count and sums in seconds; dropped events as a counter; labels escaped.
#include "telemetry/open_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "telemetry/chunk_size.h"

namespace nccl_roce::telemetry {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KeyTimings timed(CellKey key, std::initializer_list<uint64_t> durationsNs, const std::string& rule = "") {
  key.source = TimingSource::kKernelGpu;
  KeyTimings k{key, {}, rule};
  for (uint64_t ns : durationsNs) k.histogram.record(ns);
  return k;
}

CommunicatorSnapshot decodeComm(uint64_t commId = 0x1f2e3d4c5b6a7980ull, int rank = 3) {
  CommunicatorSnapshot c;
  c.commId = commId;
  c.nNodes = 2;
  c.nRanks = 16;
  c.rank = rank;
  PolicyIdentity id;
  id.experiment = "decode-ll";
  id.experimentHash = "0x51a7";
  id.arm = "candidate";
  id.policy = "fit \"v2\"";
  id.policyHash = "0x9c1d";
  c.identity = id;
  c.timings.emplace();
  c.timings->keys.push_back(timed(cellKey(4, 65536, 1, 0, 4), {30000, 40000, 40000, 300000}, "decode-ll"));
  c.decisions = std::vector<DecisionCount>{{cellKey(4, 65536, 1, 0, 0), DecisionSource::kRule, "decode-ll", "", 4}};
  c.timings->dropped[static_cast<size_t>(Drop::kMissingParent)] = 3;
  return c;
}

// A pod's process, as the downward API names it (plugin/textfile_identity.h): every series carries these first.
const ProcessLabels kPodA{"serving", "vllm-0", "node-a", 1234};
const char* kProcess = "namespace=\"serving\",pod=\"vllm-0\",node=\"node-a\",pid=\"1234\"";

const char* kComm =
    "namespace=\"serving\",pod=\"vllm-0\",node=\"node-a\",pid=\"1234\","
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
  std::string text = renderTextfile(kPodA, {decodeComm()});
  std::string cell =
      std::string(kComm) + ",collective=\"AllReduce\",message_size=\"64K-128K\",timing_source=\"kernel_gpu\"";
  uint64_t bins = 0;
  for (uint64_t us : {30, 40, 40, 300}) bins += static_cast<uint64_t>(LogHistogram::binOf(us * 1000));
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
  CommunicatorSnapshot c = decodeComm();
  c.timings->keys[0].key.choice.chunkSize = 262144;
  (*c.decisions)[0].key.choice.chunkSize = ChunkSize::scaled(1).code();
  std::string text = renderTextfile(kPodA, {c});
  EXPECT_THAT(text, HasSubstr("algorithm=\"Ring\",protocol=\"LL\",channels=\"0\",chunk_size=\"x2\",source=\"rule\""));
  EXPECT_THAT(text, HasSubstr("algo_proto=\"Ring_LL\",chunk_size=\"262144\",rule=\"decode-ll\""));
  EXPECT_EQ(seriesOf(text, "nccl_roce_collective_duration_seconds_count"),
            seriesOf(renderTextfile(kPodA, {decodeComm()}), "nccl_roce_collective_duration_seconds_count"));
}

// A duration at or below 0.1 us is one the clock could not resolve: `ab` drops it from a statistics file and counts
// it, so the textfile leaves it out of the count and sum and counts it, and both paths give the same report.
TEST(OpenMetrics, ZeroDurationsAreLeftOutOfTheCountAndCountedApart) {
  CommunicatorSnapshot c = decodeComm();
  c.timings->keys = {timed(c.timings->keys[0].key, {40000, 0, 0, 100}, "decode-ll")};
  std::string text = renderTextfile(kPodA, {c});
  std::string cell =
      std::string(kComm) + ",collective=\"AllReduce\",message_size=\"64K-128K\",timing_source=\"kernel_gpu\"";
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_count{" + cell + "} 1\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_log_duration_sum{" + cell + "} " +
                              std::to_string(LogHistogram::binOf(40000)) + "\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_ab_zero_durations_total counter\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_zero_durations_total{" + std::string(kComm) + "} 3\n"));
  EXPECT_EQ(seriesOf(renderTextfile(kPodA, {decodeComm()}), "nccl_roce_ab_zero_durations_total"), 0u)
      << "absent when none";
}

TEST(OpenMetrics, HistogramsAreMergedPerArmAndCumulativeInSeconds) {
  CommunicatorSnapshot other = decodeComm(0x22, 0);  // a second communicator of the same arm in this process
  std::string text = renderTextfile(kPodA, {decodeComm(), other});
  EXPECT_EQ(text.rfind("# TYPE nccl_roce_ab_log_duration summary\n", 0), 0u);
  std::string labels =
      std::string(kProcess) +
      ",experiment=\"decode-ll\",experiment_hash=\"0x51a7\",arm=\"candidate\",policy=\"fit \\\"v2\\\"\","
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
  EXPECT_THAT(text, HasSubstr("nccl_roce_profiler_dropped_events_total{" + std::string(kProcess) +
                              ",comm_id=\"0x1f2e3d4c5b6a7980\",rank=\"3\",reason=\"missing_parent\"} 3\n"));
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

// A communicator timing every bucket of two collectives would write 2 x 64 x 3 series: past the budget, the
// cells that do not fit are left out (in order of collective and size) and counted.
TEST(OpenMetrics, ACommunicatorsSeriesStayWithinItsBudget) {
  CommunicatorSnapshot c = decodeComm();
  c.decisions->clear();
  c.timings->keys.clear();
  for (int collective : {2, 4}) {
    for (int bucket = 0; bucket < 40; ++bucket) {
      c.timings->keys.push_back(timed(cellKey(collective, uint64_t{1} << bucket, 1, 0, 0), {5000}));
      c.decisions->push_back({cellKey(collective, uint64_t{1} << bucket, 1, 0, 0), DecisionSource::kNccl, "", "", 1});
    }
  }
  std::string text = renderTextfile(kPodA, {c});
  size_t written = seriesOf(text, "nccl_roce_ab_log_duration_count") + seriesOf(text, "nccl_roce_ab_log_duration_sum") +
                   seriesOf(text, "nccl_roce_tuner_decisions_total");
  EXPECT_EQ(written, static_cast<size_t>(kAbSeriesPerCommunicator / 3 * 3)) << "whole cells of 3 series each";
  EXPECT_THAT(text, HasSubstr("nccl_roce_ab_omitted_cells{" + std::string(kComm) + "} " +
                              std::to_string(80 - kAbSeriesPerCommunicator / 3) + "\n"));
  EXPECT_THAT(text, HasSubstr("collective=\"AllGather\",message_size=\"0-2\""));
  EXPECT_THAT(text,
              Not(HasSubstr("nccl_roce_ab_log_duration_count{" + std::string(kComm) + ",collective=\"AllReduce\"")))
      << "AllGather's cells come first";
}

TEST(OpenMetrics, BucketBoundsRunOneTwoFiveFromAMicrosecondToTenSeconds) {
  const std::vector<double>& b = exportedBucketBoundsSeconds();
  ASSERT_EQ(b.size(), 22u);
  EXPECT_DOUBLE_EQ(b.front(), 1e-6);
  EXPECT_DOUBLE_EQ(b[1], 2e-6);
  EXPECT_DOUBLE_EQ(b.back(), 10.0);
}

// A write that failed is one WARN in a log nobody reads at scale: the count, per file the process writes, is what
// an alert sees (share/nccl-roce/prometheus/nccl-roce-alerts.yml). Both series are always there, 0 on a healthy
// process, so an alert on their increase starts from a value.
TEST(OpenMetrics, TheProcessesFailedWritesAreCountedPerFile) {
  ProcessCounters counters;
  counters.statisticsWriteFailures = 3;
  std::string text = renderTextfile(kPodA, {}, counters);
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_write_failures_total counter\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_write_failures_total{" + std::string(kProcess) + ",file=\"statistics\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("nccl_roce_write_failures_total{" + std::string(kProcess) + ",file=\"metrics\"} 0\n"));
  StatusOr<std::vector<MetricSample>> parsed = parseTextfile(text);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
}

TEST(OpenMetrics, NoCommunicatorsIsAValidEmptyFile) {
  std::string text = renderTextfile(kPodA, {});
  EXPECT_THAT(text, HasSubstr("# TYPE nccl_roce_profiler_dropped_events_total counter"));
  EXPECT_EQ(text.find("_bucket"), std::string::npos);
}

// What `ab --prometheus` reads is what the plugin wrote: per communicator rank its identity, every timed cell's
// count and bin sum (zero durations apart), every decision of a timed cell, and what the budget left out.
TEST(OpenMetrics, TheAbSeriesReadBackAsTheyWereWritten) {
  CommunicatorSnapshot decode = decodeComm();
  (*decode.decisions)[0].key.choice.chunkSize = ChunkSize::scaled(1).code();
  decode.timings->keys.push_back(timed(cellKey(4, 65536, 1, 0, 8), {0, 45000}, "decode-ll"));
  CommunicatorSnapshot bare;  // a profiler without a tuner: no identity, no rank
  bare.commId = 7;
  bare.timings.emplace();
  bare.timings->keys.push_back(timed(cellKey(2, 1 << 20, 0, 2, 0), {900000}));
  StatusOr<std::vector<MetricSample>> samples = parseTextfile(renderTextfile(kPodA, {decode, bare}));
  ASSERT_TRUE(samples.isOk()) << samples.status().toString();
  StatusOr<std::vector<RankSeries>> ranks = readAbSeries(*samples);
  ASSERT_TRUE(ranks.isOk()) << ranks.status().toString();
  ASSERT_EQ(ranks->size(), 2u);
  const RankSeries& d = (*ranks)[1].commId == decode.commId ? (*ranks)[1] : (*ranks)[0];
  const RankSeries& b = (*ranks)[1].commId == decode.commId ? (*ranks)[0] : (*ranks)[1];
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.nRanks, 16);
  EXPECT_EQ(d.identity.arm, "candidate");
  EXPECT_EQ(d.identity.policy, "fit \"v2\"") << "escaped and read back";
  EXPECT_EQ(d.identity.experimentHash, "0x51a7");
  uint64_t bins = 0;
  for (uint64_t ns : {30000, 40000, 40000, 300000, 45000}) bins += static_cast<uint64_t>(LogHistogram::binOf(ns));
  ASSERT_EQ(d.timings.size(), 1u) << "two keys of one cell and clock are one series";
  const RankSeries::Cell& cell = d.timings.at({4, 16, TimingSource::kKernelGpu});
  EXPECT_EQ(cell.count, 5u);
  EXPECT_EQ(cell.binSum, bins);
  EXPECT_EQ(d.zeroDurations, 1u);
  EXPECT_EQ(d.decisions, *decode.decisions);
  EXPECT_EQ(b.rank, -1);
  EXPECT_EQ(b.identity.policy, "");
  EXPECT_EQ(b.timings.at({2, 20, TimingSource::kKernelGpu}).count, 1u);
}

// A switchback communicator (every arm in turns): control ran Ring/LL, candidate Ring/Simple in 64K-128K, and
// Tree/LL was decided by both (its time belongs to neither).
CommunicatorSnapshot switchbackComm() {
  CommunicatorSnapshot c = decodeComm();
  c.identity->arm.clear();
  c.identity->design = "switchback";
  c.timings->keys = {timed(cellKey(4, 65536, 1, 0, 4), {40000, 40000, 41000}),
                     timed(cellKey(4, 65536, 1, 2, 4), {44000, 45000}), timed(cellKey(4, 65536, 0, 0, 4), {50000})};
  c.decisions = std::vector<DecisionCount>{{cellKey(4, 65536, 1, 0, 0), DecisionSource::kNccl, "", "control", 3},
                                           {cellKey(4, 65536, 1, 2, 0), DecisionSource::kRule, "r", "candidate", 2},
                                           {cellKey(4, 65536, 0, 0, 0), DecisionSource::kNccl, "", "control", 1},
                                           {cellKey(4, 65536, 0, 0, 0), DecisionSource::kRule, "t", "candidate", 1}};
  SwitchbackTimings t;
  t.arms = {"control", "candidate"};
  t.block = 4;
  t.washout = 2;
  t.window = 64;
  t.turnsPerRound = 2;
  t.windowsClosed = 9;
  t.unattributed = 1;
  t.capturesTracked = true;
  SwitchbackCell control{4, 16, 0, 3, 3 * uint64_t{1200}, 5};
  SwitchbackCell candidate{4, 16, 1, 2, 2 * uint64_t{1300}, 4, 8, 0.1 + 0.2, 1.0 / 3};
  t.cells = {control, candidate};
  c.timings->switchback = t;
  return c;
}

// The dashboard shows a switchback's arms: each key's histogram carries the arm that decided its choice, as the
// profiler attributes it, and the `ab` series carry each arm's collectives apart.
TEST(OpenMetrics, ASwitchbacksSeriesNameTheArmThatRanEachChoice) {
  std::string text = renderTextfile(kPodA, {switchbackComm()});
  EXPECT_THAT(text, HasSubstr(",arm=\"control\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\",n_nodes=\"2\","
                              "collective=\"AllReduce\",message_size=\"64K-128K\",algo_proto=\"Ring_LL\""));
  EXPECT_THAT(text, HasSubstr(",arm=\"candidate\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\",n_nodes=\"2\","
                              "collective=\"AllReduce\",message_size=\"64K-128K\",algo_proto=\"Ring_Simple\""));
  EXPECT_THAT(text, HasSubstr(",arm=\"\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\",n_nodes=\"2\","
                              "collective=\"AllReduce\",message_size=\"64K-128K\",algo_proto=\"Tree_LL\""))
      << "a choice both arms decided belongs to neither";
  std::string cell =
      ",comm_id=\"0x1f2e3d4c5b6a7980\",rank=\"3\",nranks=\"16\",n_nodes=\"2\",collective=\"AllReduce\","
      "message_size=\"64K-128K\"";
  EXPECT_THAT(text, HasSubstr("arm=\"control\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\"" + cell +
                              ",timing_source=\"kernel_gpu\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("arm=\"candidate\",policy=\"fit \\\"v2\\\"\",policy_hash=\"0x9c1d\"" + cell +
                              ",timing_source=\"kernel_gpu\"} 2\n"));
  EXPECT_EQ(seriesOf(text, "nccl_roce_ab_log_duration_count"), 2u) << "one per arm, none with no arm";
  EXPECT_EQ(seriesOf(text, "nccl_roce_switchback_arm"), 2u);
  EXPECT_EQ(seriesOf(text, "nccl_roce_switchback_paired_windows_total"), 1u) << "the reference pairs with none";
  EXPECT_EQ(seriesOf(renderTextfile(kPodA, {decodeComm()}), "nccl_roce_switchback_arm"), 0u);
}

// What `ab --prometheus` reads of a switchback is what the statistics file gives `ab` for its eager collectives:
// one communicator rank with no arm, each arm's count and bin sum, its washout and windows, to the bit.
TEST(OpenMetrics, ASwitchbacksSeriesReadBackAsOneCommunicatorWithItsWindows) {
  CommunicatorSnapshot c = switchbackComm();
  StatusOr<std::vector<RankSeries>> ranks = readAbSeries(*parseTextfile(renderTextfile(kPodA, {c})));
  ASSERT_TRUE(ranks.isOk()) << ranks.status().toString();
  ASSERT_EQ(ranks->size(), 1u);
  const RankSeries& r = (*ranks)[0];
  EXPECT_EQ(r.identity.arm, "");
  EXPECT_EQ(r.identity.design, "switchback");
  ASSERT_TRUE(r.switchback.has_value());
  const SwitchbackTimings& want = *c.timings->switchback;
  EXPECT_EQ(r.switchback->arms, want.arms);
  EXPECT_EQ(r.switchback->block, 4u);
  EXPECT_EQ(r.switchback->washout, 2u);
  EXPECT_EQ(r.switchback->window, 64u);
  EXPECT_EQ(r.switchback->turnsPerRound, 2u);
  EXPECT_EQ(r.switchback->windowsClosed, 9u);
  EXPECT_EQ(r.switchback->unattributed, 1u);
  EXPECT_TRUE(r.switchback->capturesTracked);
  EXPECT_EQ(r.switchback->cells, want.cells) << "0.1 + 0.2 and 1/3 read back to the bit";
  EXPECT_EQ(r.decisions.size(), 4u);
  EXPECT_EQ(r.timings.at({4, 16, TimingSource::kKernelGpu}).count, 5u);
}

TEST(OpenMetrics, WhatTheBudgetLeftOutIsReadBackAsACount) {
  CommunicatorSnapshot c = decodeComm();
  c.timings->keys.clear();
  c.decisions->clear();  // two series per cell
  for (int bucket = 0; bucket < 60; ++bucket)
    c.timings->keys.push_back(timed(cellKey(4, uint64_t{1} << bucket, 1, 0, 0), {5000}));
  StatusOr<std::vector<RankSeries>> ranks = readAbSeries(*parseTextfile(renderTextfile(kPodA, {c})));
  ASSERT_TRUE(ranks.isOk());
  ASSERT_EQ(ranks->size(), 1u);
  EXPECT_EQ((*ranks)[0].timings.size(), static_cast<size_t>(kAbSeriesPerCommunicator / 2));
  EXPECT_EQ((*ranks)[0].omittedCells, static_cast<uint64_t>(60 - kAbSeriesPerCommunicator / 2));
}

TEST(OpenMetrics, TheReaderRefusesWhatThePluginNeverWrites) {
  const std::string comm = kComm;
  const std::string cell = comm + ",collective=\"AllReduce\",message_size=\"64K-128K\",timing_source=\"kernel_gpu\"";
  const std::pair<std::string, const char*> cases[] = {
      {"nccl_roce_ab_log_duration_count{" + cell + "} 4\n", "each count needs its sum"},
      {"nccl_roce_ab_log_duration_count{" + cell + "} 4\nnccl_roce_ab_log_duration_sum{" + comm +
           ",collective=\"AllReduce\",message_size=\"64K-96K\",timing_source=\"kernel_gpu\"} 9\n",
       "has no nccl_roce_ab_log_duration_sum with the same labels"},
      {"nccl_roce_ab_log_duration_count{" + comm +
           ",collective=\"AllToAll\",message_size=\"64K-128K\","
           "timing_source=\"kernel_gpu\"} 4\nnccl_roce_ab_log_duration_sum{" +
           comm +
           ",collective=\"AllToAll\","
           "message_size=\"64K-128K\",timing_source=\"kernel_gpu\"} 4\n",
       "not what the plugin writes"},
      {"nccl_roce_ab_zero_durations_total{" + comm + "} 1.5\n", "not a count"},
      {"nccl_roce_ab_zero_durations_total{experiment=\"\",comm_id=\"12\"} 1\n", "comm_id, rank"},
      {"nccl_roce_tuner_decisions_total{" + comm +
           ",collective=\"AllReduce\",message_size=\"64K-128K\","
           "algorithm=\"Ring\",protocol=\"LL\",channels=\"0\",chunk_size=\"256K\",source=\"rule\",rule=\"\"} 1\n",
       "not what the plugin writes"},
  };
  for (const auto& [text, what] : cases) {
    StatusOr<std::vector<MetricSample>> samples = parseTextfile(text);
    ASSERT_TRUE(samples.isOk()) << text;
    StatusOr<std::vector<RankSeries>> ranks = readAbSeries(*samples);
    ASSERT_FALSE(ranks.isOk()) << text;
    EXPECT_THAT(ranks.status().message(), HasSubstr(what));
  }
  for (const char* line : {"nccl_roce{a=\"1\" 3", "nccl_roce{a=1} 3", "nccl_roce{a=\"\\q\"} 3", "{a=\"1\"} 3",
                           "nccl_roce", "nccl_roce{a=\"1\",a=\"2\"} 3", "nccl_roce 1 2 3"}) {
    StatusOr<std::vector<MetricSample>> samples = parseTextfile(std::string("# TYPE x counter\n") + line + "\n");
    ASSERT_FALSE(samples.isOk()) << line;
    EXPECT_THAT(samples.status().message(), HasSubstr("textfile line 2 is not a sample"));
  }
}

}  // namespace
}  // namespace nccl_roce::telemetry

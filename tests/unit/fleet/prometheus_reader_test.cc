// The fleet read from Prometheus' query API: answers as Prometheus sends them become the records the statistics
// reader makes (a cell's count and bin sum, the tuner's decisions, one record per communicator rank), and every
// answer the plugin's textfile could not have produced is an error naming the series.
#include "fleet/prometheus_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "telemetry/chunk_size.h"

namespace nccl_roce::fleet {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json communicatorLabels(const std::string& comm, int rank, const std::string& arm) {
  return {{"experiment", "decode-ll"},
          {"experiment_hash", "0x51a7"},
          {"arm", arm},
          {"policy", arm},
          {"policy_hash", arm == "control" ? "0x1" : "0x2"},
          {"comm_id", comm},
          {"rank", std::to_string(rank)},
          {"nranks", "2"},
          {"n_nodes", "2"}};
}

json cellSeries(json labels, const std::string& size, const std::string& source, const std::string& value) {
  labels["collective"] = "AllReduce";
  labels["message_size"] = size;
  labels["timing_source"] = source;
  return {{"metric", labels}, {"value", {1795634195.511, value}}};
}

// `result`: the series; one series alone may come as itself (a braced list of one json is that json).
std::string answer(json result) {
  if (!result.is_array()) result = json::array({result});
  return json{{"status", "success"}, {"data", {{"resultType", "vector"}, {"result", result}}}}.dump();
}

// Two ranks of one candidate communicator: rank 0 timed 64K-128K on the GPU and, in a batched kernel, too; rank 1
// timed 3 of its collectives at zero.
std::vector<std::string> twoRanks() {
  json r0 = communicatorLabels("0x1f2e3d4c5b6a7980", 0, "candidate"),
       r1 = communicatorLabels("0x1f2e3d4c5b6a7980", 1, "candidate");
  json counts = {cellSeries(r0, "64K-128K", "kernel_gpu", "100"), cellSeries(r0, "64K-128K", "kernel_gpu_batch", "4"),
                 cellSeries(r1, "64K-128K", "kernel_gpu", "104")};
  json sums = {cellSeries(r0, "64K-128K", "kernel_gpu", "61200"),
               cellSeries(r0, "64K-128K", "kernel_gpu_batch", "2460"),
               cellSeries(r1, "64K-128K", "kernel_gpu", "63650")};
  json decision = r0;
  decision.update({{"collective", "AllReduce"},
                   {"message_size", "64K-128K"},
                   {"algorithm", "Ring"},
                   {"protocol", "LL"},
                   {"channels", "0"},
                   {"chunk_size", "524288"},
                   {"source", "rule"},
                   {"rule", "decode-ll"}});
  json scaled = decision;
  scaled.update({{"chunk_size", "x2"}, {"rule", "decode-x2"}});
  json nccl = r1;
  nccl.update({{"collective", "AllReduce"}, {"message_size", "64K-128K"}, {"channels", "0"}, {"source", "nccl"}});
  json decisions = {{{"metric", decision}, {"value", {1.0, "104"}}},
                    {{"metric", scaled}, {"value", {1.0, "3"}}},
                    {{"metric", nccl}, {"value", {1.0, "104"}}}};
  json zeros = {{{"metric", r1}, {"value", {1.0, "3"}}}};
  std::vector<std::string> answers = {answer(counts), answer(sums), answer(decisions), answer(json::array()),
                                      answer(zeros)};
  answers.resize(fleetQueries({}).size(), answer(json::array()));  // no switchback's series
  return answers;
}

TEST(PrometheusReader, MakesOneRecordPerCommunicatorRankWithItsCountsBinSumsAndDecisions) {
  auto read = parseFleetAnswers(twoRanks());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  ASSERT_EQ(read->records.size(), 2u);
  const CommunicatorRecord& rank0 = read->records[0];
  EXPECT_EQ(rank0.commId, 0x1f2e3d4c5b6a7980ull);
  EXPECT_EQ(rank0.rank, 0);
  EXPECT_EQ(rank0.nNodes, 2);
  EXPECT_EQ(rank0.arm, "candidate");
  EXPECT_EQ(rank0.policyHash, "0x2");
  EXPECT_EQ(rank0.experiment, "decode-ll");
  EXPECT_TRUE(rank0.fromStatistics);
  const CellTimings& cell = rank0.timings.at(TimingClock::kGpu).at(cellOf(4, 16));
  EXPECT_EQ(cell.count, 104u) << "both GPU timing sources of the cell, as the statistics reader merges them";
  EXPECT_EQ(cell.binSum, 63660u);
  TunerDecision byRule{{1, 0, 0, 524288}, DecisionSource::kRule, "decode-ll"};
  EXPECT_EQ(rank0.decisions.at(cellOf(4, 16)).at(byRule), 104u);
  TunerDecision scaled{{1, 0, 0, telemetry::ChunkSize::scaled(1).code()}, DecisionSource::kRule, "decode-x2"};
  EXPECT_EQ(rank0.decisions.at(cellOf(4, 16)).at(scaled), 3u) << "a factor of NCCL's chunk size, labelled \"x2\"";
  TunerDecision byNccl{{-1, -1, 0}, DecisionSource::kNccl, ""};
  EXPECT_EQ(read->records[1].decisions.at(cellOf(4, 16)).at(byNccl), 104u) << "empty labels: unknown, as null in files";
  auto fleet = assembleFleet(read->records, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  const CellTiming& merged = fleet->communicators[0].timings.at(TimingClock::kGpu).at(cellOf(4, 16));
  EXPECT_EQ(merged.durations.count, 208u) << "ranks merge as files do";
  EXPECT_EQ(merged.collectives, 104u) << "the communicator's collectives, each timed by both ranks";
  EXPECT_EQ(read->records[1].zeroDurations, 3u);
  EXPECT_THAT(fleet->notes.at(0), HasSubstr("3 collective(s) timed at zero"));
}

// kernel_host (NCCL 2.26: no GPU stamps) is the host's clock: kept apart from GPU timings, as in statistics files.
TEST(PrometheusReader, KeepsEachClockApart) {
  std::vector<std::string> answers = twoRanks();
  json r0 = communicatorLabels("0x1f2e3d4c5b6a7980", 0, "candidate");
  answers[0] =
      answer({cellSeries(r0, "64K-128K", "kernel_gpu", "100"), cellSeries(r0, "64K-128K", "kernel_host", "7")});
  answers[1] =
      answer({cellSeries(r0, "64K-128K", "kernel_gpu", "61200"), cellSeries(r0, "64K-128K", "kernel_host", "4400")});
  auto read = parseFleetAnswers(answers);
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  EXPECT_EQ(read->records[0].timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 100u);
  EXPECT_EQ(read->records[0].timings.at(TimingClock::kCpuKernel).at(cellOf(4, 16)).binSum, 4400u);
}

TEST(PrometheusReader, RefusesAnswersThePluginCouldNotHaveWritten) {
  struct Case {
    std::vector<std::string> answers;
    std::string says;
  };
  std::vector<std::string> good = twoRanks();
  auto with = [&good](size_t i, std::string text) {
    std::vector<std::string> a = good;
    a[i] = std::move(text);
    return a;
  };
  json r0 = communicatorLabels("0x1f", 0, "candidate");
  std::vector<Case> cases = {
      {with(0, "<html>"), "not the JSON of the query API"},
      {with(0, R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})"),
       "too many samples"},
      {with(0, answer({cellSeries(r0, "64K-128K", "kernel_gpu", "1.5")})), "is 1.5, not a count"},
      {with(0, answer({cellSeries(r0, "64K-128K", "kernel_gpu", "NaN")})), "not a count"},
      {with(1, answer(json::array())), "each count needs its sum"},
      {with(0, answer({cellSeries(r0, "64K-100K", "kernel_gpu", "1")})), "message_size is not what the plugin writes"},
      {with(0, answer({cellSeries(communicatorLabels("1f", 0, "x"), "64K-128K", "kernel_gpu", "1")})), "comm_id"},
      {with(0, R"({"status":"success","data":{"resultType":"matrix","result":[]}})"), "not an instant vector"},
      {with(0, answer({cellSeries(r0, "64K-128K", "kernel_tpu", "1")})), "timing_source is not what the plugin writes"},
      {good, "nccl_roce_tuner_decisions_total"},
  };
  cases[8].answers[1] = answer({cellSeries(r0, "64K-128K", "kernel_tpu", "1")});
  cases[4].answers[0] = answer({cellSeries(r0, "64K-128K", "kernel_gpu", "1")});
  cases[5].answers[1] = answer({cellSeries(r0, "64K-100K", "kernel_gpu", "1")});
  cases[6].answers[1] = answer({cellSeries(communicatorLabels("1f", 0, "x"), "64K-128K", "kernel_gpu", "1")});
  json chunkIn256K = r0;  // chunk sizes are written as bytes or a factor, never "256K"
  chunkIn256K.update({{"collective", "AllReduce"},
                      {"message_size", "64K-128K"},
                      {"channels", "0"},
                      {"chunk_size", "256K"},
                      {"source", "rule"},
                      {"rule", "r"}});
  cases[9].answers[2] = answer({{{"metric", chunkIn256K}, {"value", {1.0, "1"}}}});
  for (const Case& c : cases) {
    auto read = parseFleetAnswers(c.answers);
    ASSERT_FALSE(read.isOk()) << c.says;
    EXPECT_THAT(read.status().message(), HasSubstr(c.says));
  }
}

TEST(PrometheusReader, QueriesEachSeriesAtItsLastSampleInTheWindowWithDuplicatesMerged) {
  PrometheusSelection selection{"2h", "decode \"ll\""};
  std::vector<std::string> queries = fleetQueries(selection);
  ASSERT_EQ(queries.size(), 12u);
  EXPECT_EQ(
      queries[0],
      "max by (experiment, experiment_hash, arm, policy, policy_hash, comm_id, rank, nranks, n_nodes, collective, "
      "message_size, timing_source) (last_over_time(nccl_roce_ab_log_duration_count{experiment=\"decode "
      "\\\"ll\\\"\"}[2h]))");
  EXPECT_THAT(queries[2], HasSubstr("algorithm, protocol, channels, chunk_size, source, rule) (last_over_time("
                                    "nccl_roce_tuner_decisions_total{"));
  EXPECT_THAT(fleetQueries({"1h", ""})[3], HasSubstr("last_over_time(nccl_roce_ab_omitted_cells[1h])"));
  EXPECT_THAT(fleetQueries({"1h", ""})[4], HasSubstr("last_over_time(nccl_roce_ab_zero_durations_total[1h])"));
  EXPECT_THAT(fleetQueries({"1h", ""})[5],
              HasSubstr("index, block, washout, window, turns_per_round, captures_tracked) "
                        "(last_over_time(nccl_roce_switchback_arm[1h])"));
}

// A switchback's replays of CUDA graphs are judged by capture rounds, which only the statistics files hold: the
// series count the captured collectives, and the notes say where their verdicts are.
TEST(PrometheusReader, ASwitchbacksCapturesSendTheReaderToTheFiles) {
  std::vector<std::string> answers = twoRanks();
  json r0 = communicatorLabels("0x1f2e3d4c5b6a7980", 0, "control");
  json arm = r0;
  arm.update({{"index", "0"},
              {"block", "4"},
              {"washout", "2"},
              {"window", "64"},
              {"turns_per_round", "2"},
              {"captures_tracked", "1"}});
  json candidate = communicatorLabels("0x1f2e3d4c5b6a7980", 0, "candidate");
  candidate.update({{"index", "1"},
                    {"block", "4"},
                    {"washout", "2"},
                    {"window", "64"},
                    {"turns_per_round", "2"},
                    {"captures_tracked", "1"}});
  answers[5] = answer({{{"metric", arm}, {"value", {1.0, "3"}}}, {{"metric", candidate}, {"value", {1.0, "3"}}}});
  json none = communicatorLabels("0x1f2e3d4c5b6a7980", 0, "");
  for (json* labels : {&arm, &none}) {  // a switchback's series share one policy (twoRanks' rank 0 is its candidate)
    (*labels)["policy"] = "candidate";
    (*labels)["policy_hash"] = "0x2";
  }
  answers[5] = answer({{{"metric", arm}, {"value", {1.0, "3"}}}, {{"metric", candidate}, {"value", {1.0, "3"}}}});
  answers[7] = answer({{{"metric", none}, {"value", {1.0, "640"}}}});
  auto read = parseFleetAnswers(answers);
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  ASSERT_FALSE(read->notes.empty());
  EXPECT_THAT(read->notes.back(), HasSubstr("captured 640 collective(s) into CUDA graphs"));
  EXPECT_THAT(read->notes.back(), HasSubstr("statistics files only"));
}

TEST(PrometheusReader, AWindowIsAPromQLDuration) {
  for (const char* good : {"30m", "1h", "2d", "1h30m", "90s", "1w"}) EXPECT_TRUE(isPromDuration(good)) << good;
  for (const char* bad : {"", "5minutes", "1.5h", "h", "-1h", "1h]) or vector(1"})
    EXPECT_FALSE(isPromDuration(bad)) << bad;
}

TEST(PrometheusReader, ReadsAFleetThroughItsQueriesAndSaysWhatIsMissing) {
  std::vector<std::string> answers = twoRanks();
  json omitted = communicatorLabels("0x1f2e3d4c5b6a7980", 1, "candidate");
  answers[3] = answer({{{"metric", omitted}, {"value", {1.0, "3"}}}});
  int asked = 0;
  PrometheusQuery query = [&](const std::string&) -> StatusOr<std::string> {
    return answers[static_cast<size_t>(asked++)];
  };
  auto fleet = readPrometheusFleet(query, {});
  ASSERT_TRUE(fleet.isOk()) << fleet.status().toString();
  EXPECT_EQ(asked, 12);
  EXPECT_EQ(fleet->experiment, "decode-ll");
  ASSERT_EQ(fleet->notes.size(), 2u) << "the omitted cells, then the zeros";
  EXPECT_THAT(fleet->notes[0], HasSubstr("1 communicator rank(s) left 3 timed cell(s) out of their textfile"));

  asked = 0;
  auto refused = readPrometheusFleet(query, {"5minutes", ""});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(asked, 0) << "refused before asking";

  PrometheusQuery empty = [&](const std::string&) -> StatusOr<std::string> { return answer(json::array()); };
  auto none = readPrometheusFleet(empty, {"1h", "decode-ll"});
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("of experiment 'decode-ll' in the last 1h"));

  PrometheusQuery down = [](const std::string&) -> StatusOr<std::string> {
    return Status(StatusCode::kUnavailable, "Prometheus at http://x: Couldn't connect to server");
  };
  EXPECT_THAT(readPrometheusFleet(down, {}).status().message(), HasSubstr("Couldn't connect"));
}

}  // namespace
}  // namespace nccl_roce::fleet

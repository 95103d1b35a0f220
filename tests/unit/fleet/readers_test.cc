// Reading a fleet: our statistics files and Inspector's dumps as their writers produce them, and every bad input
// an error that names the file (and the line), never a record that could feed a wrong verdict. What is not a
// timed collective (zero durations, point-to-point, collectives the tuner never decides, a cut-short last
// record) is counted, not an error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using testing::CommEntry;
using ::testing::HasSubstr;
using testing::TimedKey;

// `text` with its first `from` replaced by `to`: a hand-edited file.
std::string replacedIn(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(StatisticsReader, ReadsArmsAndTimingsPerCommunicatorAndCell) {
  CommEntry comm;
  comm.arm = "candidate";
  comm.keys = {TimedKey{"AllReduce", 65536, 40, 20}, TimedKey{"AllGather", 1 << 20, 90, 5}};
  auto records = parseTelemetryFile(testing::statisticsFile({comm}), "pod-a.json");
  ASSERT_TRUE(records.isOk()) << records.status().toString();
  ASSERT_EQ(records->size(), 1u);
  const CommunicatorRecord& r = (*records)[0];
  EXPECT_EQ(r.commId, 0x1f2e3d4c5b6a7980ull);
  EXPECT_EQ(r.arm, "candidate");
  EXPECT_EQ(r.experiment, "decode-ll");
  EXPECT_EQ(r.rank, 0);
  const CellTimings& allReduce = r.timings.at(TimingClock::kGpu).at(cellOf(4, 16));
  EXPECT_EQ(allReduce.count, 20u);
  EXPECT_EQ(allReduce.binSum, 20u * static_cast<uint64_t>(telemetry::LogHistogram::binOf(40000)));
  EXPECT_NEAR(*allReduce.geometricMeanNs(), 40000, 400);
  EXPECT_EQ(r.timings.at(TimingClock::kGpu).at(cellOf(2, 20)).count, 5u);
}

// kernel_host: NCCL 2.26 has no GPU stamps, so the profiler times kernels by the host clock. Kept apart.
TEST(StatisticsReader, KeepsEachClocksTimingsApartAndDropsZeroDurations) {
  CommEntry comm;
  comm.keys = {TimedKey{"AllReduce", 65536, 40, 20, "kernel_gpu"},
               TimedKey{"AllReduce", 65536, 40, 6, "kernel_gpu_batch"},
               TimedKey{"AllReduce", 65536, 55, 7, "kernel_host"}, TimedKey{"AllReduce", 65536, 0, 3, "kernel_gpu"}};
  auto records = parseTelemetryFile(testing::statisticsFile({comm}), "pod-a.json");
  ASSERT_TRUE(records.isOk()) << records.status().toString();
  const CommunicatorRecord& r = (*records)[0];
  EXPECT_EQ(r.timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 26u) << "a batch's shared time is a GPU time";
  EXPECT_EQ(r.timings.at(TimingClock::kCpuKernel).at(cellOf(4, 16)).count, 7u);
  EXPECT_EQ(r.zeroDurations, 3u);
  auto unknown = parseTelemetryFile(replacedIn(testing::statisticsFile({comm}), "kernel_host", "kernel_tpu"), "x.json");
  ASSERT_FALSE(unknown.isOk());
  EXPECT_THAT(unknown.status().message(), HasSubstr("timing_source is not"));
}

TEST(StatisticsReader, ReadsTheTunersDecisionsPerCellWhoMadeThemAndHowOften) {
  CommEntry comm;
  comm.decisions = {testing::DecisionLine{"AllReduce", 65536, "Ring", "LL", 0, "rule", "explore ring/ll", 90},
                    testing::DecisionLine{"AllReduce", 65536, "Ring", "LL128", 0, "nccl", "", 10},
                    testing::DecisionLine{"AllReduce", 1 << 20, "", "", 8, "unavailable", "explore tree/ll", 5}};
  auto records = parseTelemetryFile(testing::statisticsFile({comm}), "pod-a.json");
  ASSERT_TRUE(records.isOk()) << records.status().toString();
  const CommunicatorRecord& r = (*records)[0];
  EXPECT_EQ(r.nNodes, 2);
  const DecisionCounts& at64K = r.decisions.at(cellOf(4, 16));
  EXPECT_EQ(at64K.at(TunerDecision{{1, 0, 0}, DecisionSource::kRule, "explore ring/ll"}), 90u);
  EXPECT_EQ(at64K.at(TunerDecision{{1, 1, 0}, DecisionSource::kNccl, ""}), 10u);
  EXPECT_EQ(
      r.decisions.at(cellOf(4, 20)).at(TunerDecision{{-1, -1, 8}, DecisionSource::kUnavailable, "explore tree/ll"}), 5u)
      << "an unknown algorithm and protocol (null) read as -1";
}

TEST(StatisticsReader, AnEntryWithoutDecisionsReadsWithNone) {
  CommEntry comm;
  std::string text = testing::statisticsFile({comm});
  size_t at = text.find("\"decisions\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"decisions\"").size(), "\"other\"");  // a profiler-only entry
  auto records = parseTelemetryFile(text, "pod-a.json");
  ASSERT_TRUE(records.isOk()) << records.status().toString();
  EXPECT_TRUE((*records)[0].decisions.empty());
}

TEST(StatisticsReader, EveryBadInputIsAnErrorNamingTheFile) {
  std::string good = testing::statisticsFile({CommEntry{}});
  auto replaced = [&](const std::string& from, const std::string& to) { return replacedIn(good, from, to); };
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2), "not valid JSON"},                // truncated by a full disk
      {replaced("nccl-roce.stats/2", "nccl-roce.stats/1"), "schema"},     // another version
      {replaced("\"0x1f2e3d4c5b6a7980\"", "\"1f2e\""), "comm_id"},        // hand-edited id
      {replaced("\"AllReduce\"", "\"AllToAll\""), "unknown collective"},  // not a collective we time
      {replaced("\"count\": 20", "\"count\": 21"), "bins hold 20"},       // counts that do not add up
      {replaced("\"bins\": 1024", "\"bins\": 2048"), "1024 bins"},        // another histogram scheme
      {replaced("\"arm\": \"control\"", "\"arm\": 7"), "arm is not a string"},
      {replaced("\"algorithm\": \"Tree\"", "\"algorithm\": \"Star\""), "decisions[0]: algorithm is neither null"},
      {replaced("\"protocol\": \"LL\"", "\"protocol\": 3"), "protocol is neither null"},  // decisions come first
      {replaced("\"channels\": 0", "\"channels\": 99"), "channels is not a whole number 0..64"},
      {replaced("\"source\": \"rule\"", "\"source\": \"tuner\""), "source is not"},
      {replaced("\"rule\": \"decode-small\"", "\"rule\": 4"), "rule is neither null nor a string"},
      {replaced("\"decisions\": [", "\"decisions\": 5, \"was\": ["), "decisions is not a list"},
      // Numbers no conversion may take: a fraction, one past int's range, a float past every integer's.
      {replaced("\"n_ranks\": 16", "\"n_ranks\": 1.5"), "n_ranks is not a whole number"},
      {replaced("\"n_nodes\": 2", "\"n_nodes\": 2147483648"), "n_nodes is not a whole number"},
      {replaced("\"rank\": 0", "\"rank\": 6.6e86"), "rank is not a whole number"},
      {replaced("\"bins\": 1024", "\"bins\": 1024.5"), "1024 bins"},
      {"[]", "schema"},
  };
  for (const auto& [text, why] : cases) {
    auto records = parseTelemetryFile(text, "pod-a.json");
    ASSERT_FALSE(records.isOk()) << why;
    EXPECT_THAT(records.status().message(), HasSubstr("pod-a.json"));
    EXPECT_THAT(records.status().message(), HasSubstr(why));
  }
}

TEST(StatisticsReader, ReadsACheckpointsEntriesWithTheirProcessNumberStateAndTime) {
  CommEntry live;
  live.entry = 3;
  live.state = "live";
  live.updated = "2026-03-01T12:34:56.789Z";
  CommEntry final = live;
  final.entry = 4;
  final.state = "final";
  auto records = parseTelemetryFile(testing::checkpointFile({live, final}, "vllm-7", 31), "stats.31.json");
  ASSERT_TRUE(records.isOk()) << records.status().toString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].entryId, "vllm-7/31/3");
  EXPECT_TRUE((*records)[0].live);
  EXPECT_EQ((*records)[0].updatedMs, 1772368496789);
  EXPECT_EQ((*records)[1].entryId, "vllm-7/31/4");
  EXPECT_FALSE((*records)[1].live);
  auto older = parseTelemetryFile(testing::statisticsFile({CommEntry{}}), "stats.30.json");
  ASSERT_TRUE(older.isOk()) << "schema /2 still reads";
  EXPECT_EQ((*older)[0].entryId, "") << "and names no entry: never taken for another state of one";
  EXPECT_FALSE((*older)[0].live);
}

TEST(StatisticsReader, ACheckpointWithoutItsEntriesNamesOrStatesIsAnError) {
  std::string good = testing::checkpointFile({CommEntry{}});
  const std::pair<std::string, std::string> cases[] = {
      {replacedIn(good, "\"entry\": 1", "\"entry\": 0"), "entry is not a number from 1"},
      {replacedIn(good, "\"entry\": 1", "\"entri\": 1"), "entry is not a number from 1"},
      {replacedIn(good, "\"state\": \"final\"", "\"state\": \"paused\""), "state is neither"},
      {replacedIn(good, "2026-03-01T12:00:00.000Z", "2026-03-01 12:00:00"), "updated is not a UTC time"},
      {replacedIn(good, "\"host\": \"node-a\"", "\"host\": 5"), "no host and pid"},
  };
  for (const auto& [text, why] : cases) {
    auto records = parseTelemetryFile(text, "stats.1.json");
    ASSERT_FALSE(records.isOk()) << why;
    EXPECT_THAT(records.status().message(), HasSubstr("stats.1.json"));
    EXPECT_THAT(records.status().message(), HasSubstr(why));
  }
}

TEST(InspectorReader, ReadsOneLineAndPrettyPrintedRecordsPerCommunicatorAndRank) {
  std::string text = testing::inspectorRecord("0x7f8c496ae9f661", 2, "AllReduce", 65536, 41) +
                     testing::inspectorRecord("0x7f8c496ae9f661", 2, "AllReduce", 65536, 39, /*oneLine=*/false) +
                     testing::inspectorRecord("0x7f8c496ae9f661", 3, "AllGather", 4096, 12) +
                     testing::inspectorRecord("0x7f8c496ae9f661", 3, "AllGatherV", 4096, 12) +
                     "{\"header\": {\"id\": \"0x7f8c496ae9f661\", \"rank\": 2}, \"metadata\": "
                     "{\"inspector_output_format_version\": \"v4.0\"}, \"p2p_perf\": {\"p2p\": \"Send\"}}\n";
  auto dump = parseInspectorDump(text, "inspector.log");
  ASSERT_TRUE(dump.isOk()) << dump.status().toString();
  ASSERT_EQ(dump->records.size(), 2u) << "ranks 2 and 3";
  const CommunicatorRecord& rank2 = dump->records[0];
  EXPECT_EQ(rank2.commId, 0x7f8c496ae9f661ull);
  EXPECT_FALSE(rank2.fromStatistics);
  EXPECT_EQ(rank2.timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 2u);
  // AllGather's message size is per rank; the tuner (and our buckets) count it times the ranks: 4 KiB x 16.
  EXPECT_EQ(dump->records[1].timings.at(TimingClock::kGpu).count(cellOf(2, 16)), 1u);
  EXPECT_EQ(dump->pointToPoint, 1u);
  EXPECT_EQ(dump->otherCollectives, 1u) << "AllGatherV: counted, not timed";
  EXPECT_EQ(dump->truncatedLast, "");
}

// Strings hold whatever JSON allows: an escaped quote, backslashes, unicode escapes. A hand-written splitter once
// ended a string at \" and refused a valid line.
TEST(InspectorReader, StringsWithEscapesReadAsJsonSaysTheyDo) {
  std::string record = testing::inspectorRecord("0x7f8c496ae9f661", 2, "AllReduce", 65536, 41);
  const std::string hostnames[] = {R"("node\"7")", R"("C:\\nodes\\7\\")", R"("n\u00f6de-\u2603\ud83d\ude80")",
                                   R"("{\"}\"{")", R"("\\")"};
  for (const std::string& hostname : hostnames) {
    std::string text = replacedIn(record, "\"node-a\"", hostname);
    auto dump = parseInspectorDump(text + text, "inspector.log");
    ASSERT_TRUE(dump.isOk()) << hostname << ": " << dump.status().toString();
    ASSERT_EQ(dump->records.size(), 1u) << hostname;
    EXPECT_EQ(dump->records[0].timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 2u) << hostname;
  }
}

TEST(InspectorReader, ObjectsMayBeSplitAcrossLinesOrShareOne) {
  std::string one = testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41);
  one.pop_back();  // no newline: the next object follows on the same line
  std::string pretty = testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 43, /*oneLine=*/false);
  std::string split = replacedIn(replacedIn(one, ",", ",\n\n  "), ":", "\n:\t");
  auto dump = parseInspectorDump("\n\n" + one + one + "\n" + pretty + split + "\r\n", "inspector.log");
  ASSERT_TRUE(dump.isOk()) << dump.status().toString();
  ASSERT_EQ(dump->records.size(), 1u);
  EXPECT_EQ(dump->records[0].timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 4u);
}

TEST(InspectorReader, EachClockIsKeptApartAndZeroDurationsAreCounted) {
  auto dump = parseInspectorDump(
      testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41) +
          testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 57, true, "v4.0", "kernel_cpu") +
          testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 90, true, "v4.0", "collective_cpu") +
          testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 0, true, "v4.0", "collective_cpu"),
      "inspector.log");
  ASSERT_TRUE(dump.isOk()) << dump.status().toString();
  const CommunicatorRecord& r = dump->records.at(0);
  EXPECT_EQ(r.timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 1u);
  EXPECT_EQ(r.timings.at(TimingClock::kCpuKernel).at(cellOf(4, 16)).count, 1u);
  EXPECT_EQ(r.timings.at(TimingClock::kCpuCollective).at(cellOf(4, 16)).count, 1u);
  EXPECT_EQ(r.zeroDurations, 1u) << "coll_exec_time_us: 0 is dropped, not clamped to the histogram's floor";
}

// The append-only dump of a killed process ends inside its last object: the objects before it are read, and the
// cut is said. An empty dump (Inspector creates it before the first collective it keeps) holds no record.
TEST(InspectorReader, ACutShortLastRecordIsSkippedAndSaid) {
  std::string record = testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41);
  for (size_t cut : {size_t{1}, size_t{40}, record.size() - 3}) {
    auto dump = parseInspectorDump(record + record + record.substr(0, cut), "cut.log");
    ASSERT_TRUE(dump.isOk()) << cut << ": " << dump.status().toString();
    EXPECT_EQ(dump->truncatedLast, "line 3") << cut;
    EXPECT_EQ(dump->records.at(0).timings.at(TimingClock::kGpu).at(cellOf(4, 16)).count, 2u);
  }
  auto pretty = parseInspectorDump(
      record + testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41, false).substr(0, 200), "cut.log");
  ASSERT_TRUE(pretty.isOk());
  EXPECT_EQ(pretty->truncatedLast, "line 2") << "where the object starts";
  for (const char* empty : {"", "\n", "  \n\n"}) {
    auto dump = parseInspectorDump(empty, "empty.log");
    ASSERT_TRUE(dump.isOk());
    EXPECT_TRUE(dump->records.empty());
    EXPECT_EQ(dump->truncatedLast, "");
  }
}

TEST(InspectorReader, AnotherFormatVersionOrAMalformedRecordIsAnErrorWithItsLine) {
  auto other = parseInspectorDump(testing::inspectorRecord("0x1", 0, "AllReduce", 8, 1, true, "v3.0"), "old.log");
  ASSERT_FALSE(other.isOk());
  EXPECT_THAT(other.status().message(), HasSubstr("old.log: line 1"));
  EXPECT_THAT(other.status().message(), HasSubstr("v3.0"));
  std::string record = testing::inspectorRecord("0x1", 0, "AllReduce", 8, 1);
  std::string pretty = testing::inspectorRecord("0x1", 0, "AllReduce", 8, 1, false);
  const std::pair<std::string, std::string> cases[] = {
      // A line cut in the middle: JSON allows the newline, so the error is where the next line starts.
      {record + record.substr(0, 40) + "\n" + record, "bad.log: line 3: not valid JSON (in the object from line 2)"},
      {record + "\n" + replacedIn(pretty, "\"rank\"", "rank"),
       "bad.log: line 6: not valid JSON (in the object from line 3)"},
      {record + "[1, 2]\n", "bad.log: line 2: not a JSON object"},
      {record + replacedIn(record, "\"kernel_gpu\"", "\"kernel_tpu\""), "line 2: coll_timing_source is not"},
      {record + "}\n", "bad.log: line 2: not valid JSON"},
  };
  for (const auto& [text, why] : cases) {
    auto dump = parseInspectorDump(text, "bad.log");
    ASSERT_FALSE(dump.isOk()) << why;
    EXPECT_THAT(dump.status().message(), HasSubstr(why));
  }
}

// Found by fuzzing: nlohmann leaves a float such as 6.7e86 read as an int undefined. Every number is checked
// for its type and range first, and a record that fails is an error naming the file and line.
TEST(InspectorReader, NumbersOfTheWrongTypeOrRangeAreErrorsNotConversions) {
  std::string good = testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41);
  auto replaced = [&](const std::string& from, const std::string& to) { return replacedIn(good, from, to); };
  const std::pair<std::string, std::string> cases[] = {
      {replaced("\"nnodes\":2", "\"nnodes\":666666666666666666666666666666666666666666661"), "header.nnodes"},
      {replaced("\"n_ranks\":16", "\"n_ranks\":-3"), "header.n_ranks"},
      {replaced("\"rank\":0", "\"rank\":0.5"), "header.rank"},
      {replaced("\"coll_exec_time_us\":41", "\"coll_exec_time_us\":1e300"), "coll_exec_time_us is not a duration"},
      {replaced("\"coll_exec_time_us\":41", "\"coll_exec_time_us\":-41"), "coll_exec_time_us is not a duration"},
  };
  for (const auto& [text, why] : cases) {
    auto records = parseInspectorDump(text, "dump.log");
    ASSERT_FALSE(records.isOk()) << why;
    EXPECT_THAT(records.status().message(), HasSubstr("dump.log: line 1"));
    EXPECT_THAT(records.status().message(), HasSubstr(why));
  }
}

}  // namespace
}  // namespace nccl_roce::fleet

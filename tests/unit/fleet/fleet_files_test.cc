// A collected directory as operators copy it off their pods: statistics files and Inspector dumps told apart by
// content, and what is neither, empty or cut short skipped and listed by name, never fatal; a file of either
// format that fails its own checks is still an error.
#include "fleet/fleet_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using testing::CommEntry;
using ::testing::HasSubstr;

// An NCCL debug log and a vLLM log, as they sit next to the dumps in a pod's log directory.
const char* kNcclDebugLog =
    "node-a:1639453:1639453 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>\n"
    "node-a:1639453:1639453 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n";
const char* kVllmLog =
    "INFO 05-21 10:04:11 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n"
    "{\"level\": \"info\", \"msg\": \"engine started\"}\n";

TEST(FleetFiles, EachFileIsToldByItsContent) {
  EXPECT_EQ(inputKindOf(""), InputKind::kEmpty);
  EXPECT_EQ(inputKindOf(" \n\t\r\n"), InputKind::kEmpty);
  EXPECT_EQ(inputKindOf(testing::statisticsFile({CommEntry{}})), InputKind::kStatistics);
  EXPECT_EQ(inputKindOf(testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41)), InputKind::kInspector);
  EXPECT_EQ(inputKindOf(kNcclDebugLog), InputKind::kForeign);
  EXPECT_EQ(inputKindOf(kVllmLog), InputKind::kForeign);
  EXPECT_EQ(inputKindOf("{\"schema\": \"nccl-roce.ab/1\", \"comparisons\": []}"), InputKind::kForeign)
      << "a report of nccl-roce ab itself, written into the collected directory";
}

TEST(FleetFiles, EmptyForeignAndCutShortInputsAreSkippedAndNamed) {
  CommEntry candidate;
  candidate.commId = "0x2";
  candidate.arm = "candidate";
  candidate.policyHash = "0x2222222222222222";
  std::string record = testing::inspectorRecord("0x2", 1, "AllReduce", 65536, 41);
  FleetReader reader;
  for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
           {"pod-0/stats.1.json", testing::statisticsFile({CommEntry{}, candidate})},
           {"pod-1/inspector.log", ""},
           {"pod-1/nccl-debug.log", kNcclDebugLog},
           {"pod-1/vllm.log", kVllmLog},
           {"pod-2/inspector.log", record + record + record.substr(0, 50)}}) {
    Status added = reader.add(file, text);
    ASSERT_TRUE(added.isOk()) << file << ": " << added.toString();
  }
  StatusOr<Fleet> fleet = reader.assemble();
  ASSERT_TRUE(fleet.isOk()) << fleet.status().toString();
  EXPECT_EQ(fleet->communicators.size(), 2u);
  ASSERT_EQ(fleet->skipped.size(), 4u);
  EXPECT_EQ(fleet->skipped[0].file, "pod-1/inspector.log");
  EXPECT_EQ(fleet->skipped[0].why, "empty");
  EXPECT_EQ(fleet->skipped[1].file, "pod-1/nccl-debug.log");
  EXPECT_EQ(fleet->skipped[1].why, "neither a statistics file nor an Inspector dump");
  EXPECT_EQ(fleet->skipped[2].file, "pod-1/vllm.log");
  EXPECT_EQ(fleet->skipped[3].file, "pod-2/inspector.log");
  EXPECT_THAT(fleet->skipped[3].why, HasSubstr("its last record, from line 3, is cut short"));
}

TEST(FleetFiles, AFileOfEitherFormatThatFailsItsChecksIsAnError) {
  std::string stats = testing::statisticsFile({CommEntry{}});
  std::string record = testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41);
  for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
           {"stats.9.json", stats.substr(0, stats.size() / 2)},  // ours are written whole: a cut one is damaged
           {"stats.8.json", "{\"schema\": \"nccl-roce.stats/1\", \"communicators\": []}"},
           {"inspector.log", record + "{\"header\": oops}\n" + record},
           {"old.log", testing::inspectorRecord("0x1", 0, "AllReduce", 65536, 41, true, "v3.0")}}) {
    FleetReader reader;
    Status added = reader.add(file, text);
    EXPECT_FALSE(added.isOk()) << file;
    EXPECT_THAT(added.message(), HasSubstr(file));
  }
}

// The plugin renames whole files into place, so a statistics file that stops part-way is a copy that did: the
// error says so, for the operator to copy it again.
TEST(FleetFiles, AStatisticsFileCutShortSaysSoAndHowLongItIs) {
  std::string stats = testing::statisticsFile({CommEntry{}});
  std::string cut = stats.substr(0, 120);
  FleetReader reader;
  Status added = reader.add("pod-3/stats.7.json", cut);
  ASSERT_FALSE(added.isOk());
  EXPECT_EQ(added.message(),
            "pod-3/stats.7.json: cut short after 120 bytes (the plugin renames whole files into "
            "place, so a copy that stopped part-way)");
  Status edited = reader.add("pod-3/stats.8.json", "{\"schema\": \"nccl-roce.stats/2\", \"communicators\": 7}");
  ASSERT_FALSE(edited.isOk());
  EXPECT_THAT(edited.message(), ::testing::Not(HasSubstr("cut short"))) << "whole, but not what the plugin writes";
  // Found by fuzz_inspector_log: a number past a double's range is an error about the file, not a throw.
  Status huge = reader.add("pod-3/stats.9.json", "{\"schema\": \"nccl-roce.stats/2\", \"x\": 1e999}");
  ASSERT_FALSE(huge.isOk());
  EXPECT_THAT(huge.message(), HasSubstr("pod-3/stats.9.json"));
}

// A caller that goes on without an unreadable file lists it as skipped, marked as an input error: the gates
// (--strict, --fail-on-slower) refuse to pass on it, where an empty file passes --fail-on-slower.
TEST(FleetFiles, AnUnreadableFileLeftOutIsListedAsAnInputError) {
  FleetReader reader;
  ASSERT_TRUE(reader.add("pod-0/stats.1.json", testing::statisticsFile({CommEntry{}})).isOk());
  ASSERT_TRUE(reader.add("pod-1/inspector.log", "").isOk());
  reader.skipUnreadable("pod-3/stats.7.json", "cut short after 120 bytes");
  StatusOr<Fleet> fleet = reader.assemble();
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->skipped.size(), 2u);
  EXPECT_FALSE(fleet->skipped[0].error) << "an empty file lost nothing";
  EXPECT_EQ(fleet->skipped[1].file, "pod-3/stats.7.json");
  EXPECT_EQ(fleet->skipped[1].why, "cut short after 120 bytes");
  EXPECT_TRUE(fleet->skipped[1].error);
}

TEST(FleetFiles, InspectorRecordsThatAreNotTimedCollectivesAreCounted) {
  FleetReader reader;
  ASSERT_TRUE(reader.add("pod-0/stats.1.json", testing::statisticsFile({CommEntry{}})).isOk());
  std::string p2p =
      "{\"header\": {\"id\": \"0x1f2e3d4c5b6a7980\", \"rank\": 2}, \"metadata\": "
      "{\"inspector_output_format_version\": \"v4.0\"}, \"p2p_perf\": {\"p2p\": \"Send\"}}\n";
  ASSERT_TRUE(
      reader.add("inspector.log", p2p + p2p + testing::inspectorRecord("0x1f2e3d4c5b6a7980", 1, "AllGatherV", 4096, 9))
          .isOk());
  StatusOr<Fleet> fleet = reader.assemble();
  ASSERT_TRUE(fleet.isOk());
  EXPECT_THAT(fleet->notes, ::testing::Contains("Inspector records not compared: 2 point-to-point, 1 of collectives "
                                                "the tuner never decides (AllGatherV, ...)"));
}

}  // namespace
}  // namespace nccl_roce::fleet

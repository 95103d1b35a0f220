// Assembling a fleet and comparing its arms: ranks of one communicator merged into one unit, ranks that decided
// differently named and left out, experiments never mixed, Inspector timings joined by communicator id.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/ab_comparison.h"
#include "fleet/arm_census.h"
#include "fleet/fleet.h"
#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using ::testing::HasSubstr;
using testing::CommEntry;

std::vector<CommunicatorRecord> records(const std::vector<CommEntry>& comms, const std::string& file) {
  auto r = parseTelemetryFile(testing::statisticsFile(comms), file);
  EXPECT_TRUE(r.isOk()) << r.status().toString();
  return r.isOk() ? *r : std::vector<CommunicatorRecord>();
}

CommEntry comm(const std::string& id, const std::string& arm, int rank, double us) {
  CommEntry c;
  c.commId = id;
  c.arm = arm;
  c.policyHash = arm == "control" ? "0x1111111111111111" : "0x2222222222222222";
  c.rank = rank;
  c.keys[0].microseconds = us;
  return c;
}

TEST(Fleet, RanksOfOneCommunicatorInDifferentPodsAreOneUnit) {
  auto a = records({comm("0xa1", "control", 0, 40)}, "pod-0.json");
  auto b = records({comm("0xa1", "control", 1, 44)}, "pod-1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].records, 2);
  EXPECT_EQ(fleet->communicators[0].timings.at(cellOf(4, 16)).count, 40u) << "both ranks' collectives";
}

TEST(Fleet, RanksThatDecidedDifferentlyAreNamedAndLeftOut) {
  auto a = records({comm("0xa1", "control", 0, 40), comm("0xb2", "control", 0, 40)}, "pod-0.json");
  auto b = records({comm("0xa1", "candidate", 1, 40), comm("0xb2", "control", 1, 40)}, "pod-1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->errors.size(), 1u);
  EXPECT_THAT(fleet->errors[0], HasSubstr("communicator 0x00000000000000a1: ranks disagree"));
  EXPECT_THAT(fleet->errors[0], HasSubstr("pod-0.json"));
  EXPECT_THAT(fleet->errors[0], HasSubstr("pod-1.json"));
  EXPECT_THAT(fleet->errors[0], HasSubstr("hang"));
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].commId, 0xb2u);
}

TEST(Fleet, ACommunicatorKeepsItsNodeCountAndTheDecisionsOfAllItsRanks) {
  auto a = records({comm("0xa1", "control", 0, 40)}, "pod-0.json");
  auto b = records({comm("0xa1", "control", 1, 44)}, "pod-1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  const FleetCommunicator& c = fleet->communicators[0];
  EXPECT_EQ(c.nNodes, 2);
  EXPECT_EQ(c.decisions.at(cellOf(4, 16)).at(TunerDecision{0, 0, 0, DecisionSource::kRule, "decode-small"}), 200u)
      << "every rank's tuner counts its own calls";
}

TEST(Fleet, RanksReportingDifferentNodeCountsAreNamedAndLeftOut) {
  CommEntry other = comm("0xa1", "control", 1, 40);
  other.nodes = 4;
  auto a = records({comm("0xa1", "control", 0, 40), comm("0xb2", "control", 0, 40)}, "pod-0.json");
  auto b = records({other}, "pod-1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->errors.size(), 1u);
  EXPECT_THAT(fleet->errors[0], HasSubstr("communicator 0x00000000000000a1: ranks disagree on the node count"));
  EXPECT_THAT(fleet->errors[0], HasSubstr("pod-1.json"));
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].commId, 0xb2u);
}

TEST(Fleet, StatisticsFromDifferentExperimentsAreRefused) {
  CommEntry other = comm("0xa2", "control", 0, 40);
  other.experiment = "prefill-tree";
  auto a = records({comm("0xa1", "control", 0, 40)}, "pod-0.json");
  auto b = records({other}, "pod-9.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_FALSE(fleet.isOk());
  EXPECT_THAT(fleet.status().message(), HasSubstr("pod-0.json"));
  EXPECT_THAT(fleet.status().message(), HasSubstr("pod-9.json"));
}

TEST(Fleet, InspectorTimingsJoinOurArmsByCommunicatorId) {
  CommEntry untimed = comm("0x7f8c496ae9f661", "candidate", 0, 40);
  untimed.keys.clear();
  auto ours = records({untimed}, "pod-0.json");
  auto inspector = parseInspectorDump(testing::inspectorRecord("0x7f8c496ae9f661", 0, "AllReduce", 65536, 41) +
                                          testing::inspectorRecord("0x99", 0, "AllReduce", 65536, 41),
                                      "inspector.log");
  ASSERT_TRUE(inspector.isOk());
  StatusOr<Fleet> fleet = assembleFleet(ours, *inspector);
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].arm, "candidate");
  EXPECT_EQ(fleet->communicators[0].timings.at(cellOf(4, 16)).count, 1u);
  EXPECT_EQ(fleet->withoutArm, 1) << "0x99 has no statistics file giving its arm";
}

// A pod's directory holds its latest checkpoint; an operator may also collect an earlier copy, and a kill between
// the two writes that move final entries to a part file leaves them in both files.
TEST(Fleet, OfSeveralStatesOfOneEntryOnlyTheLatestCounts) {
  CommEntry checkpoint = comm("0xa1", "control", 0, 40);
  checkpoint.state = "live";
  checkpoint.updated = "2026-03-01T12:00:00.000Z";
  checkpoint.keys[0].count = 10;
  CommEntry final = checkpoint;
  final.state = "final";
  final.updated = "2026-03-01T12:05:00.000Z";
  final.keys[0].count = 30;
  auto parse = [](const std::vector<CommEntry>& comms, const std::string& file) {
    auto r = parseTelemetryFile(testing::checkpointFile(comms), file);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? *r : std::vector<CommunicatorRecord>();
  };
  std::vector<CommunicatorRecord> all;
  for (auto part : {parse({final}, "stats.4242.json"), parse({checkpoint}, "copied-earlier/stats.4242.json"),
                    parse({final}, "stats.4242.final-1.json")}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  StatusOr<Fleet> fleet = assembleFleet(all, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].records, 1) << "one rank, however many copies of its entry";
  EXPECT_EQ(fleet->communicators[0].timings.at(cellOf(4, 16)).count, 30u) << "its final state";
  EXPECT_FALSE(fleet->communicators[0].live);
}

TEST(Fleet, EntriesOfDifferentProcessesAreNeverTakenForOneAnother) {
  auto a = parseTelemetryFile(testing::checkpointFile({comm("0xa1", "control", 0, 40)}, "node-a", 11), "a.json");
  auto b = parseTelemetryFile(testing::checkpointFile({comm("0xa1", "control", 1, 40)}, "node-b", 11), "b.json");
  ASSERT_TRUE(a.isOk() && b.isOk());
  a->insert(a->end(), b->begin(), b->end());
  StatusOr<Fleet> fleet = assembleFleet(*a, {});
  ASSERT_TRUE(fleet.isOk());
  EXPECT_EQ(fleet->communicators[0].records, 2) << "entry 1 of pid 11 on two hosts: two ranks";
}

TEST(Fleet, CommunicatorsStillLiveCountAsOfTheirCheckpointAndTheReportSaysHowMany) {
  CommEntry running = comm("0xa1", "control", 0, 40);
  running.state = "live";
  CommEntry done = comm("0xb2", "candidate", 0, 40);
  done.entry = 2;
  auto records = parseTelemetryFile(testing::checkpointFile({running, done}), "stats.4242.json");
  ASSERT_TRUE(records.isOk());
  StatusOr<Fleet> fleet = assembleFleet(*records, {});
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 2u);
  EXPECT_TRUE(fleet->communicators[0].live);
  EXPECT_FALSE(fleet->communicators[1].live);
  ArmCensus census = censusOfArms(*fleet, /*needNodeCount=*/false);
  EXPECT_EQ(census.communicatorsPerArm.at("control"), 1);
  EXPECT_THAT(census.notes, ::testing::Contains(HasSubstr("1 timed communicator(s) were still live")));
}

TEST(AbComparison, ArmsMissingOnOneSideAreAnErrorNotAVerdict) {
  StatusOr<Fleet> fleet = assembleFleet(records({comm("0xa1", "candidate", 0, 40)}, "pod-0.json"), {});
  auto report = compareArms(*fleet, AbOptions{});
  ASSERT_FALSE(report.isOk());
  EXPECT_THAT(report.status().message(), HasSubstr("no timed communicator of the control arm 'control'"));
  EXPECT_THAT(report.status().message(), HasSubstr("candidate"));
}

TEST(AbComparison, ACommunicatorCountsOnceHoweverManyCollectivesItRan) {
  std::vector<CommEntry> comms;
  for (int i = 0; i < 3; ++i) {
    comms.push_back(comm("0xc" + std::to_string(i), "control", 0, 40 + i));
    comms.push_back(comm("0xd" + std::to_string(i), "candidate", 0, 30 + i));
  }
  comms[0].keys[0].count = 100000;  // one busy communicator is still one unit
  StatusOr<Fleet> fleet = assembleFleet(records(comms, "pod.json"), {});
  auto report = compareArms(*fleet, AbOptions{});
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  ASSERT_EQ(report->comparisons.size(), 1u);
  const verdicts::CellComparison& cell = report->comparisons[0].cells.cells.at(0);
  EXPECT_EQ(cell.nA, 3);
  EXPECT_EQ(cell.nB, 3);
  EXPECT_NEAR(cell.ratio, std::cbrt(30.0 * 31 * 32) / std::cbrt(40.0 * 41 * 42), 0.01);
  EXPECT_EQ(cell.verdict, verdicts::Verdict::kFaster);
}

}  // namespace
}  // namespace nccl_roce::fleet

// Assembling a fleet and comparing its arms: ranks of one communicator merged into one unit, ranks that decided
// differently named and left out, experiments never mixed, Inspector timings joined by communicator id and merged
// with ours in a mixed fleet, collectives counted per communicator, zero durations and CPU clocks kept out of the
// GPU comparison and counted.
#include "fleet/fleet.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/ab_comparison.h"
#include "fleet/arm_census.h"
#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using testing::CommEntry;
using ::testing::HasSubstr;

std::vector<CommunicatorRecord> records(const std::vector<CommEntry>& comms, const std::string& file) {
  auto r = parseTelemetryFile(testing::statisticsFile(comms), file);
  EXPECT_TRUE(r.isOk()) << r.status().toString();
  return r.isOk() ? *r : std::vector<CommunicatorRecord>();
}

const CellTiming& gpuTiming(const FleetCommunicator& c, uint64_t cell) {
  return c.timings.at(TimingClock::kGpu).at(cell);
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
  const CellTiming& timing = gpuTiming(fleet->communicators[0], cellOf(4, 16));
  EXPECT_EQ(timing.durations.count, 40u) << "both ranks' durations";
  EXPECT_EQ(timing.collectives, 20u) << "the communicator ran 20 collectives, each timed by both ranks";
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
  EXPECT_EQ(c.decisions.at(cellOf(4, 16)).at(TunerDecision{{0, 0, 0}, DecisionSource::kRule, "decode-small"}), 200u)
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
  StatusOr<Fleet> fleet = assembleFleet(ours, inspector->records);
  ASSERT_TRUE(fleet.isOk());
  ASSERT_EQ(fleet->communicators.size(), 1u);
  EXPECT_EQ(fleet->communicators[0].arm, "candidate");
  EXPECT_EQ(gpuTiming(fleet->communicators[0], cellOf(4, 16)).durations.count, 1u);
  EXPECT_EQ(fleet->communicators[0].timedBy, TimedBy::kInspector);
  EXPECT_EQ(fleet->withoutArm, 1) << "0x99 has no statistics file giving its arm";
}

// The mixed fleet: six pods ran our profiler, six ran Inspector (whose tuner still wrote the arm). Every
// communicator is timed by the one source it has, and the report says how many came from each.
TEST(Fleet, AMixedFleetTimesEachCommunicatorByTheSourceItHas) {
  std::vector<CommunicatorRecord> ours;
  std::string dumps;
  for (int i = 0; i < 12; ++i) {
    std::string id = "0xe" + std::to_string(i);
    CommEntry c = comm(id, i % 2 ? "candidate" : "control", 0, 40);
    if (i >= 6) {
      c.keys.clear();  // the tuner-only statistics file of a pod that runs Inspector
      for (int k = 0; k < 20; ++k) dumps += testing::inspectorRecord(id, 0, "AllReduce", 65536, 41);
    }
    auto r = records({c}, "pod-" + std::to_string(i) + ".json");
    ours.insert(ours.end(), r.begin(), r.end());
  }
  auto inspector = parseInspectorDump(dumps, "inspector.log");
  ASSERT_TRUE(inspector.isOk()) << inspector.status().toString();
  StatusOr<Fleet> fleet = assembleFleet(ours, inspector->records);
  ASSERT_TRUE(fleet.isOk());
  auto report = compareArms(*fleet, AbOptions{});
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  EXPECT_EQ(report->communicatorsPerArm.at("control"), 6);
  EXPECT_EQ(report->communicatorsPerArm.at("candidate"), 6);
  EXPECT_THAT(report->notes, ::testing::Contains(HasSubstr(
                                 "6 communicator(s) timed by NVIDIA Inspector only: its timings used for them (6 "
                                 "timed by nccl-roce's profiler)")));
}

TEST(Fleet, ACommunicatorTimedByBothSourcesUsesOursAndNotesWhereTheyDisagree) {
  auto ours = records({comm("0xa1", "control", 0, 40), comm("0xa2", "control", 0, 40)}, "pod-0.json");
  std::string dumps;
  for (int k = 0; k < 20; ++k) {
    dumps += testing::inspectorRecord("0xa1", 1, "AllReduce", 65536, 41);  // 2.5% apart: agrees
    dumps += testing::inspectorRecord("0xa2", 1, "AllReduce", 65536, 52);  // 30% apart
  }
  auto inspector = parseInspectorDump(dumps, "inspector.log");
  ASSERT_TRUE(inspector.isOk());
  StatusOr<Fleet> fleet = assembleFleet(ours, inspector->records);
  ASSERT_TRUE(fleet.isOk());
  for (const FleetCommunicator& c : fleet->communicators) {
    EXPECT_EQ(c.timedBy, TimedBy::kProfiler);
    EXPECT_NEAR(*gpuTiming(c, cellOf(4, 16)).durations.geometricMeanNs(), 40000, 400) << "ours, not Inspector's";
  }
  EXPECT_THAT(fleet->notes, ::testing::Contains(HasSubstr("2 communicator(s) timed by both nccl-roce's profiler and "
                                                          "Inspector")));
  EXPECT_THAT(fleet->notes, ::testing::Contains(HasSubstr("1 of them differ between the two by more than 10%: "
                                                          "0x00000000000000a2 (AllReduce 64K-128K 39.9 vs 51.8 us)")));
}

// A 4-rank communicator that ran 3 collectives in a bucket has 12 rank records there, but 3 collectives: below a
// minimum of 10 it does not count.
TEST(AbComparison, TheMinimumCollectivesCountsACommunicatorsCollectivesNotItsRankRecords) {
  std::vector<CommunicatorRecord> all;
  for (int i = 0; i < 3; ++i) {
    for (const char* arm : {"control", "candidate"}) {
      for (int rank = 0; rank < 4; ++rank) {
        CommEntry c = comm(std::string(arm[1] == 'o' ? "0xc" : "0xd") + std::to_string(i), arm, rank, 40 + i);
        c.keys[0].count = 3;
        c.keys.push_back(c.keys[0]);
        c.keys[1].sizeMin = 1 << 20;
        c.keys[1].count = 10;
        auto r = records({c}, "pod-" + std::to_string(rank) + ".json");
        all.insert(all.end(), r.begin(), r.end());
      }
    }
  }
  StatusOr<Fleet> fleet = assembleFleet(all, {});
  auto report = compareArms(*fleet, AbOptions{});
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  ASSERT_EQ(report->comparisons.size(), 1u);
  const std::vector<verdicts::CellComparison>& cells = report->comparisons[0].cells.cells;
  ASSERT_EQ(cells.size(), 1u) << "64K-128K: 3 collectives per communicator, 12 rank records";
  EXPECT_EQ(cells[0].cell, cellOf(4, 20));
  EXPECT_EQ(report->comparisons[0].collectivesControl.at(cellOf(4, 20)), 30u) << "3 communicators x 10 collectives";
}

TEST(Fleet, ZeroDurationsAreDroppedAndCounted) {
  CommEntry c = comm("0xa1", "control", 0, 40);
  c.keys.push_back(c.keys[0]);
  c.keys[1].microseconds = 0;  // the clock could not resolve them
  c.keys[1].count = 4;
  auto ours = records({c}, "pod-0.json");
  auto inspector = parseInspectorDump(testing::inspectorRecord("0xa1", 1, "AllReduce", 65536, 0) +
                                          testing::inspectorRecord("0xa1", 1, "AllReduce", 65536, 41),
                                      "inspector.log");
  ASSERT_TRUE(inspector.isOk());
  StatusOr<Fleet> fleet = assembleFleet(ours, inspector->records);
  ASSERT_TRUE(fleet.isOk());
  const CellTiming& timing = gpuTiming(fleet->communicators.at(0), cellOf(4, 16));
  EXPECT_EQ(timing.durations.count, 20u) << "the 4 zeros are not in the comparison";
  EXPECT_NEAR(*timing.durations.geometricMeanNs(), 40000, 400);
  EXPECT_THAT(fleet->notes, ::testing::Contains(HasSubstr("5 collective(s) timed at zero")));
  EXPECT_THAT(fleet->notes, ::testing::Contains(HasSubstr("in communicator(s) 0x00000000000000a1")))
      << "named by id: files and Prometheus' series both name it so";
}

// Inspector falls back to the host's clock when it has no GPU timer: those durations are compared among
// themselves, in their own comparison, and never pooled with GPU timings.
TEST(AbComparison, CollectivesTimedOnTheCpuAreComparedApartFromGpuTimings) {
  std::vector<CommunicatorRecord> all;
  std::string dumps;
  for (int i = 0; i < 3; ++i) {
    for (const char* arm : {"control", "candidate"}) {
      bool control = arm[1] == 'o';
      std::string id = std::string(control ? "0xc" : "0xd") + std::to_string(i);
      auto r = records({comm(id, arm, 0, control ? 40 + i : 30 + i)}, "pod.json");
      all.insert(all.end(), r.begin(), r.end());
      for (int k = 0; k < 20; ++k) {
        uint64_t us = control ? 200 + i : 200 + 2 * i;
        dumps += testing::inspectorRecord(id, 1, "AllReduce", 65536, us, true, "v4.0", "kernel_cpu");
      }
    }
  }
  auto inspector = parseInspectorDump(dumps, "inspector.log");
  ASSERT_TRUE(inspector.isOk());
  // Ours has GPU timings for every communicator: Inspector's are left aside whatever their clock.
  StatusOr<Fleet> mixed = assembleFleet(all, inspector->records);
  ASSERT_TRUE(mixed.isOk());
  EXPECT_EQ(mixed->communicators[0].timings.count(TimingClock::kCpuKernel), 0u);
  // Without ours, the CPU timings are the only ones: compared on their own clock.
  for (CommunicatorRecord& r : all) r.timings.clear();
  StatusOr<Fleet> fleet = assembleFleet(all, inspector->records);
  ASSERT_TRUE(fleet.isOk());
  auto report = compareArms(*fleet, AbOptions{});
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  ASSERT_EQ(report->comparisons.size(), 1u);
  EXPECT_EQ(report->comparisons[0].clock, TimingClock::kCpuKernel);
  EXPECT_EQ(report->comparisons[0].cells.cells.at(0).verdict, verdicts::Verdict::kNoDifference);
  EXPECT_THAT(report->notes, ::testing::Contains(HasSubstr("6 communicator(s) hold collectives timed on the CPU "
                                                           "(120 CPU (kernel))")));
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
  EXPECT_EQ(gpuTiming(fleet->communicators[0], cellOf(4, 16)).collectives, 30u) << "its final state";
  EXPECT_FALSE(fleet->communicators[0].live);
}

// The states of one entry, parsed from the files they were found in, in the order given.
std::vector<CommunicatorRecord> statesIn(const std::vector<std::vector<CommEntry>>& files) {
  std::vector<CommunicatorRecord> all;
  int n = 0;
  for (const std::vector<CommEntry>& comms : files) {
    auto r = parseTelemetryFile(testing::checkpointFile(comms), "copy-" + std::to_string(n++) + "/stats.4242.json");
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    if (r.isOk()) all.insert(all.end(), r->begin(), r->end());
  }
  return all;
}

// NTP steps the clock back between a checkpoint and the final write: the final state carries the older stamp, and
// it is still the one kept, in whatever order the files are read. The report says the stamps were overruled.
TEST(Fleet, AFinalStateBeatsACheckpointStampedLater) {
  CommEntry checkpoint = comm("0xa1", "control", 0, 40);
  checkpoint.state = "live";
  checkpoint.updated = "2026-03-01T12:00:00.500Z";
  checkpoint.keys[0].count = 326;
  CommEntry final = checkpoint;
  final.state = "final";
  final.updated = "2026-03-01T12:00:00.100Z";  // the clock went back 0.4 s
  final.keys[0].count = 639;
  for (bool finalFirst : {true, false}) {
    StatusOr<Fleet> fleet =
        assembleFleet(finalFirst ? statesIn({{final}, {checkpoint}}) : statesIn({{checkpoint}, {final}}), {});
    ASSERT_TRUE(fleet.isOk());
    ASSERT_EQ(fleet->communicators.size(), 1u);
    EXPECT_EQ(gpuTiming(fleet->communicators[0], cellOf(4, 16)).collectives, 639u) << "finalFirst " << finalFirst;
    EXPECT_FALSE(fleet->communicators[0].live) << "finished, not still running";
    EXPECT_THAT(fleet->notes, ::testing::Contains(HasSubstr("1 communicator entry's latest state carried an older "
                                                            "update stamp")));
  }
}

// Copies of a pod's directory taken at different times, by a clock that does not agree with the pod's: of two
// checkpoints the one that has counted more is the later, whatever their stamps and the order of the copies.
TEST(Fleet, OfTwoCheckpointsTheOneThatCountedMoreIsTheLater) {
  CommEntry early = comm("0xa1", "control", 0, 40);
  early.state = "live";
  early.updated = "2026-03-01T12:10:00.000Z";
  early.keys[0].count = 100;
  CommEntry later = early;
  later.updated = "2026-03-01T12:09:00.000Z";
  later.keys[0].count = 250;
  CommEntry same = later;  // the same state copied twice: the stamp decides nothing, one counts
  for (const auto& files : {std::vector<std::vector<CommEntry>>{{early}, {later}, {same}},
                            std::vector<std::vector<CommEntry>>{{same}, {later}, {early}}}) {
    StatusOr<Fleet> fleet = assembleFleet(statesIn(files), {});
    ASSERT_TRUE(fleet.isOk());
    EXPECT_EQ(fleet->communicators[0].records, 1);
    EXPECT_EQ(gpuTiming(fleet->communicators[0], cellOf(4, 16)).collectives, 250u);
    EXPECT_TRUE(fleet->communicators[0].live);
  }
  StatusOr<Fleet> agreeing = assembleFleet(statesIn({{early}, {CommEntry(early)}}), {});
  ASSERT_TRUE(agreeing.isOk());
  for (const std::string& note : agreeing->notes) EXPECT_THAT(note, ::testing::Not(HasSubstr("older update stamp")));
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

// A collected directory can hold several experiments' files (last week's beside this week's, or one experiment
// file edited while it ran). Their arms mean different things, so they are never compared together: without
// --experiment the refusal names every experiment found and how to pick one; with it, one experiment's statistics
// are read and the rest are counted in a note.
#include "fleet/experiment_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/fleet.h"
#include "fleet/telemetry_reader.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using testing::CommEntry;
using ::testing::HasSubstr;

CommEntry comm(const std::string& id, const std::string& experiment, const std::string& hash = "0x51a7") {
  CommEntry c;
  c.commId = id;
  c.experiment = experiment;
  c.experimentHash = hash;
  return c;
}

std::vector<CommunicatorRecord> records(const std::vector<CommEntry>& comms, const std::string& file) {
  auto r = parseTelemetryFile(testing::statisticsFile(comms), file);
  EXPECT_TRUE(r.isOk()) << r.status().toString();
  return r.isOk() ? *r : std::vector<CommunicatorRecord>();
}

std::vector<CommunicatorRecord> twoExperiments() {
  auto a = records({comm("0xa1", "decode-ll"), comm("0xa2", "decode-ll")}, "pod-0/stats.1.json");
  auto b = records({comm("0xb1", "prefill-tree", "0x9e")}, "pod-9/stats.1.json");
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ExperimentChoice, MixedExperimentsAreRefusedNamingEachAndHowToPickOne) {
  StatusOr<Fleet> fleet = assembleFleet(twoExperiments(), {});
  ASSERT_FALSE(fleet.isOk());
  EXPECT_THAT(fleet.status().message(),
              HasSubstr("compare one experiment at a time: name it with --experiment (the inputs hold 'decode-ll' "
                        "(0x51a7), 'prefill-tree' (0x9e))"));
}

TEST(ExperimentChoice, TwoVersionsOfOneExperimentAreRefusedNamingTheHashToPick) {
  auto a = records({comm("0xa1", "decode-ll", "sha256:aaaa")}, "pod-0.json");
  auto b = records({comm("0xa2", "decode-ll", "sha256:bbbb")}, "pod-1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<Fleet> fleet = assembleFleet(a, {});
  ASSERT_FALSE(fleet.isOk());
  EXPECT_THAT(fleet.status().message(), HasSubstr("two versions of experiment 'decode-ll'"));
  EXPECT_THAT(fleet.status().message(), HasSubstr("--experiment sha256:bbbb"));
}

TEST(ExperimentChoice, OneExperimentIsPickedByNameAndTheRestCounted) {
  StatusOr<ExperimentRecords> picked = recordsOfExperiment(twoExperiments(), {}, "decode-ll");
  ASSERT_TRUE(picked.isOk()) << picked.status().toString();
  ASSERT_EQ(picked->statistics.size(), 2u);
  EXPECT_EQ(picked->statistics[0].experiment, "decode-ll");
  EXPECT_EQ(picked->note,
            "--experiment decode-ll: communicator entries of other experiments left out ('prefill-tree' 1)");
  StatusOr<Fleet> fleet = assembleFleet(picked->statistics, picked->inspector);
  ASSERT_TRUE(fleet.isOk()) << fleet.status().toString();
  EXPECT_EQ(fleet->experiment, "decode-ll");
}

TEST(ExperimentChoice, OneVersionIsPickedByItsHash) {
  auto a = records({comm("0xa1", "decode-ll", "sha256:aaaa")}, "pod-0.json");
  auto b = records({comm("0xa2", "decode-ll", "sha256:bbbb"), comm("0xa3", "decode-ll", "sha256:bbbb")}, "p1.json");
  a.insert(a.end(), b.begin(), b.end());
  StatusOr<ExperimentRecords> picked = recordsOfExperiment(a, {}, "sha256:bbbb");
  ASSERT_TRUE(picked.isOk());
  EXPECT_EQ(picked->statistics.size(), 2u);
  EXPECT_TRUE(assembleFleet(picked->statistics, picked->inspector).isOk());
}

// Inspector dumps name no experiment: their records join statistics by communicator id, so only those of another
// experiment's communicators are left out.
TEST(ExperimentChoice, InspectorRecordsOfAnotherExperimentsCommunicatorsAreLeftOut) {
  std::vector<CommunicatorRecord> inspector(3);
  inspector[0].commId = 0xa1;  // decode-ll's
  inspector[1].commId = 0xb1;  // prefill-tree's
  inspector[2].commId = 0xc1;  // in no statistics file
  StatusOr<ExperimentRecords> picked = recordsOfExperiment(twoExperiments(), inspector, "decode-ll");
  ASSERT_TRUE(picked.isOk());
  ASSERT_EQ(picked->inspector.size(), 2u);
  EXPECT_EQ(picked->inspector[0].commId, 0xa1u);
  EXPECT_EQ(picked->inspector[1].commId, 0xc1u);
  EXPECT_THAT(picked->note, HasSubstr("with 1 Inspector record(s) of their communicators"));
}

TEST(ExperimentChoice, AnExperimentNotInTheInputsIsRefusedNamingThoseThatAre) {
  StatusOr<ExperimentRecords> picked = recordsOfExperiment(twoExperiments(), {}, "decode-tree");
  ASSERT_FALSE(picked.isOk());
  EXPECT_EQ(picked.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(picked.status().message(),
            "no statistics of experiment 'decode-tree' in the inputs; the experiments there: 'decode-ll' (0x51a7), "
            "'prefill-tree' (0x9e): name one of them with --experiment");
}

}  // namespace
}  // namespace nccl_roce::fleet

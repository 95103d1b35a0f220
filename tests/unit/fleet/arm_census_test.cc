// When nothing can be compared, the refusal says why and what to do about it, rather than asking for another
// --control: a fleet whose pods never loaded the profiler has arms but no timings; one whose pods loaded a plain
// policy has timings but no arms.
#include "fleet/arm_census.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/ab_comparison.h"
#include "fleet/fleet.h"
#include "fleet/telemetry_reader.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using testing::CommEntry;
using ::testing::HasSubstr;
using ::testing::Not;

StatusOr<Fleet> fleetOf(const std::vector<CommEntry>& comms) {
  auto records = parseTelemetryFile(testing::statisticsFile(comms), "pod-0/stats.1.json");
  EXPECT_TRUE(records.isOk()) << records.status().toString();
  return assembleFleet(records.isOk() ? *records : std::vector<CommunicatorRecord>(), {});
}

CommEntry comm(const std::string& id, const std::string& arm) {
  CommEntry c;
  c.commId = id;
  c.arm = arm;
  c.policyHash = arm == "control" ? "0x1" : "0x2";
  return c;
}

TEST(NothingToCompare, ArmsWithoutTimingsSayTheProfilerWasNotLoadedAndHowToLoadIt) {
  CommEntry control = comm("0xc1", "control"), candidate = comm("0xd1", "candidate");
  control.keys.clear();  // the tuner's decisions only: what a pod without the profiler writes
  candidate.keys.clear();
  StatusOr<Fleet> fleet = fleetOf({control, candidate});
  ASSERT_TRUE(fleet.isOk()) << fleet.status().toString();
  StatusOr<AbReport> report = compareArms(*fleet, AbOptions{});
  ASSERT_FALSE(report.isOk());
  const std::string& why = report.status().message();
  EXPECT_THAT(why, HasSubstr("no timings: none of the 2 communicator(s) of an experiment arm was timed"));
  EXPECT_THAT(why, HasSubstr("the profiler was not loaded"));
  EXPECT_THAT(why, HasSubstr("NCCL_PROFILER_PLUGIN=roce beside NCCL_ROCE_STATS"));
  EXPECT_THAT(why, Not(HasSubstr("--control")));
}

// A switchback's communicators ran every arm: read without the windows its statistics files hold (as from the
// textfiles of plugins whose series named the experiment but no arm), the refusal says so and where the windows
// are, not that the pods ran no experiment.
TEST(NothingToCompare, ASwitchbackReadWithoutItsWindowsSaysToReadItsStatisticsFiles) {
  Fleet fleet;
  fleet.experiment = "decode-ll";
  FleetCommunicator c;
  c.commId = 0xc1;
  c.timings[TimingClock::kGpu][1] = CellTiming{};
  fleet.communicators.push_back(c);
  StatusOr<AbReport> report = compareArms(fleet, AbOptions{});
  ASSERT_FALSE(report.isOk());
  EXPECT_THAT(report.status().message(), HasSubstr("the communicators of experiment 'decode-ll' give no arm"));
  EXPECT_THAT(report.status().message(), HasSubstr("run `nccl-roce ab` on the pods' statistics files"));
  EXPECT_THAT(report.status().message(), Not(HasSubstr("names a policy, not an experiment")));
}

TEST(NothingToCompare, TimingsWithoutArmsSayThePodsRanNoExperiment) {
  CommEntry plain = comm("0xc1", "");
  plain.experiment = "";
  StatusOr<Fleet> fleet = fleetOf({plain});
  ASSERT_TRUE(fleet.isOk()) << fleet.status().toString();
  StatusOr<AbReport> report = compareArms(*fleet, AbOptions{});
  ASSERT_FALSE(report.isOk());
  EXPECT_THAT(report.status().message(), HasSubstr("no communicator ran an experiment arm"));
  EXPECT_THAT(report.status().message(), Not(HasSubstr("--control")));
}

// A control that is only misnamed still gets the arms that were found, so --control can be corrected.
TEST(NothingToCompare, AMisnamedControlIsAnsweredWithTheArmsFound) {
  StatusOr<Fleet> fleet = fleetOf({comm("0xc1", "baseline"), comm("0xd1", "candidate")});
  ASSERT_TRUE(fleet.isOk());
  StatusOr<AbReport> report = compareArms(*fleet, AbOptions{});
  ASSERT_FALSE(report.isOk());
  EXPECT_THAT(report.status().message(), HasSubstr("baseline, candidate"));
}

}  // namespace
}  // namespace nccl_roce::fleet

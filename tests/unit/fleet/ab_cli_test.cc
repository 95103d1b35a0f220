// `nccl-roce ab` as an operator runs it on a directory of statistics files: the verdict, the gate, the outputs,
// and exit 2 with the file named on input it cannot trust.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using ::testing::HasSubstr;
using nccl_roce::testing::cliPath;
using nccl_roce::testing::runCommand;
using nccl_roce::testing::TempDir;
using testing::CommEntry;

// Four communicators per arm, one file per pod; the candidate's collectives take `candidateUs`.
void writeFleet(const TempDir& dir, double candidateUs) {
  for (int i = 0; i < 4; ++i) {
    for (const char* arm : {"control", "candidate"}) {
      CommEntry c;
      c.commId = std::string("0x") + (arm[1] == 'o' ? "c" : "d") + std::to_string(i);
      c.arm = arm;
      c.policyHash = arm[1] == 'o' ? "0x1" : "0x2";
      c.keys[0].microseconds = (arm[1] == 'o' ? 40.0 : candidateUs) + i;
      dir.writeFile(std::string("pods/") + arm + std::to_string(i) + "/stats.1.json", testing::statisticsFile({c}));
    }
  }
}

TEST(AbCli, GivesAVerdictPerBucketAndGatesOnASlowerArm) {
  TempDir dir;
  writeFleet(dir, 48);
  auto report = runCommand(cliPath() + " ab " + dir.join("pods") + " --svg " + dir.join("ab.svg") + " --json " +
                           dir.join("ab.json"));
  EXPECT_EQ(report.exitCode, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("## candidate vs control: AllReduce"));
  EXPECT_THAT(report.out, HasSubstr("| 64K-128K | 4 / 4 | 80 / 80 |"));
  EXPECT_THAT(report.out, HasSubstr("slower"));
  auto json = nlohmann::json::parse(runCommand("cat " + dir.join("ab.json")).out);
  EXPECT_EQ(json["schema"], "nccl-roce.ab/1");
  EXPECT_EQ(json["comparisons"][0]["summary"]["verdict"], "slower");
  EXPECT_THAT(runCommand("cat " + dir.join("ab.svg")).out, HasSubstr("<svg"));
  auto gate = runCommand(cliPath() + " ab '" + dir.join("pods") + "/*/stats.*.json' --fail-on-slower");
  EXPECT_EQ(gate.exitCode, 1) << "a quoted glob, and the rollout gate closed";
}

TEST(AbCli, UnreadableInputExitsTwoNamingTheFile) {
  TempDir dir;
  writeFleet(dir, 40);
  dir.writeFile("pods/control0/stats.2.json", "{\"schema\": \"nccl-roce.stats/2\", \"communicators\": [");
  auto report = runCommand(cliPath() + " ab " + dir.join("pods"));
  EXPECT_EQ(report.exitCode, 2);
  EXPECT_THAT(report.err, HasSubstr("stats.2.json"));
  EXPECT_EQ(report.out, "") << "no verdict from a fleet with a file that cannot be read";
}

// The fleet comes from files or from Prometheus, never both, and the Prometheus options need --prometheus.
TEST(AbCli, TakesStatisticsFilesOrPrometheusNotBoth) {
  TempDir dir;
  writeFleet(dir, 40);
  auto both = runCommand(cliPath() + " ab " + dir.join("pods") + " --prometheus http://127.0.0.1:1");
  EXPECT_NE(both.exitCode, 0);
  EXPECT_THAT(both.err, HasSubstr("give statistics files or --prometheus, not both"));
  auto window = runCommand(cliPath() + " ab fit " + dir.join("pods") + " --window 2h");
  EXPECT_NE(window.exitCode, 0);
  EXPECT_THAT(window.err, HasSubstr("apply only with --prometheus"));
  auto neither = runCommand(cliPath() + " ab fit");
  EXPECT_NE(neither.exitCode, 0);
  EXPECT_THAT(neither.err, HasSubstr("STATS or --prometheus"));
}

}  // namespace
}  // namespace nccl_roce::fleet

// `nccl-roce ab` as an operator runs it on a directory of statistics files: the verdict, the gate, the outputs,
// and exit 3 with the file named on input it cannot trust (more on the gates: ab_gates_cli_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using nccl_roce::testing::cliPath;
using nccl_roce::testing::runCommand;
using nccl_roce::testing::TempDir;
using testing::CommEntry;
using ::testing::HasSubstr;

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

TEST(AbCli, UnreadableInputExitsThreeNamingTheFileAndTheRemedy) {
  TempDir dir;
  writeFleet(dir, 40);
  dir.writeFile("pods/control0/stats.2.json", "{\"schema\": \"nccl-roce.stats/2\", \"communicators\": [");
  auto report = runCommand(cliPath() + " ab " + dir.join("pods"));
  EXPECT_EQ(report.exitCode, 3);
  EXPECT_THAT(report.err, HasSubstr(dir.join("pods/control0/stats.2.json") + ": cut short after 50 bytes"));
  EXPECT_THAT(report.err, HasSubstr("re-copy it from its pod, or move it aside; --skip-unreadable leaves such files "
                                    "out and lists them"));
  EXPECT_EQ(report.out, "") << "no verdict from a fleet with a file that cannot be read";
}

// What an operator copies off the pods: the statistics files, an empty Inspector dump (created before the first
// collective it keeps), NCCL's and vLLM's own logs, and last time's report. The report reads the fleet, names every
// file it skipped, and exits 0; --strict makes a skipped file exit 3 for a pipeline that must see every file.
TEST(AbCli, SkippedInputsAreListedByNameAndFailOnlyWithStrict) {
  TempDir dir;
  writeFleet(dir, 48);
  dir.writeFile("pods/control0/inspector.log", "");
  dir.writeFile("pods/control0/nccl.log", "node-a:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n");
  dir.writeFile("pods/candidate1/vllm.log", "INFO 05-21 10:04:11 [api_server.py:1090] Starting vLLM API server\n");
  auto first = runCommand(cliPath() + " ab " + dir.join("pods") + " --json " + dir.join("pods/ab.json"));
  EXPECT_EQ(first.exitCode, 0) << first.err;
  auto report = runCommand(cliPath() + " ab " + dir.join("pods") + " --json " + dir.join("ab.json"));
  EXPECT_EQ(report.exitCode, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("- skipped: " + dir.join("pods/control0/inspector.log") + ": empty"));
  EXPECT_THAT(report.out, HasSubstr("- skipped: " + dir.join("pods/control0/nccl.log") +
                                    ": neither a statistics file nor an Inspector dump"));
  EXPECT_THAT(report.out, HasSubstr(dir.join("pods/candidate1/vllm.log")));
  EXPECT_THAT(report.out, HasSubstr(dir.join("pods/ab.json"))) << "last time's report, in the directory";
  EXPECT_THAT(report.err, HasSubstr("nccl-roce ab: skipped " + dir.join("pods/control0/nccl.log")));
  EXPECT_THAT(report.out, HasSubstr("slower"));
  auto json = nlohmann::json::parse(runCommand("cat " + dir.join("ab.json")).out);
  EXPECT_EQ(json["skipped_inputs"].size(), 4u);
  auto strict = runCommand(cliPath() + " ab --strict " + dir.join("pods"));
  EXPECT_EQ(strict.exitCode, 3);
  EXPECT_THAT(strict.err, HasSubstr("nccl-roce ab: skipped " + dir.join("pods/control0/inspector.log") + ": empty"));
  EXPECT_THAT(strict.err, HasSubstr("nccl-roce ab: 4 input(s) skipped (above): exit 3, --strict wants every input "
                                    "read whole"));
  EXPECT_THAT(strict.out, HasSubstr("slower")) << "the report is written, and says what was skipped";
}

// The summary averages the buckets over the communicators that measured all of them. When that leaves an arm
// below the minimum, the report says how many were left and gives no verdict.
TEST(AbCli, ASummaryThatKeepsTooFewCommunicatorsSaysSoInsteadOfDeciding) {
  TempDir dir;
  writeFleet(dir, 48);
  // Every control and three of the four candidates also ran a second bucket, which the summary averages over.
  for (int i = 0; i < 4; ++i) {
    for (const char* arm : {"control", "candidate"}) {
      bool control = arm[1] == 'o';
      if (!control && i == 3) continue;
      CommEntry c;
      c.commId = std::string(control ? "0xc" : "0xd") + std::to_string(i);
      c.arm = arm;
      c.policyHash = control ? "0x1" : "0x2";
      c.keys[0].microseconds = (control ? 40.0 : 48.0) + i;
      c.keys.push_back(c.keys[0]);
      c.keys[1].sizeMin = 1 << 20;
      dir.writeFile(std::string("pods/") + arm + std::to_string(i) + "/stats.1.json", testing::statisticsFile({c}));
    }
  }
  auto report = runCommand(cliPath() + " ab " + dir.join("pods") + " --min-communicators 4");
  EXPECT_EQ(report.exitCode, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("measured by 4 of 4 control and 3 of 4 arm communicators"));
  EXPECT_THAT(report.out, HasSubstr("only 3 of the 4 communicators of 'candidate' measured all 2 size buckets: "
                                    "fewer than the 4 a verdict needs"));
  EXPECT_THAT(report.out, HasSubstr("**insufficient data**"));
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
  auto skip = runCommand(cliPath() + " ab --skip-unreadable --prometheus http://127.0.0.1:1");
  EXPECT_EQ(skip.exitCode, 2);
  EXPECT_THAT(skip.err, HasSubstr("--skip-unreadable: applies only to STATS files"));
}

}  // namespace
}  // namespace nccl_roce::fleet

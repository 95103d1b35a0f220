// `nccl-roce ab` as a rollout gate never passes on an input error: a communicator whose ranks disagree on their arm
// (the hang risk, NVIDIA/nccl#1136) always, and under --fail-on-slower or --strict a file that is not statistics
// or could not be read, exit 3, which a pipeline tells from 1 ("slower") and 2 (usage; cli/exit_status.h). The
// report is still written, and every refusal says what to do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
using ::testing::Not;

CommEntry comm(const std::string& id, const std::string& arm, double us) {
  CommEntry c;
  c.commId = id;
  c.arm = arm;
  c.policyHash = arm == "control" ? "0x1" : "0x2";
  c.keys[0].microseconds = us;
  return c;
}

// Four communicators per arm, one file per pod, in experiment `experiment`; the candidate's collectives take
// `candidateUs` (the control's 40).
void writeFleet(const TempDir& dir, double candidateUs, const std::string& experiment = "decode-ll") {
  for (int i = 0; i < 4; ++i) {
    for (const char* arm : {"control", "candidate"}) {
      bool control = arm[1] == 'o';
      CommEntry c =
          comm(std::string(control ? "0xc" : "0xd") + std::to_string(i), arm, (control ? 40.0 : candidateUs) + i);
      c.experiment = experiment;
      dir.writeFile("pods/" + experiment + "-" + arm + std::to_string(i) + "/stats.1.json",
                    testing::statisticsFile({c}));
    }
  }
}

std::string ab(const std::string& args) {
  return cliPath() + " ab " + args;
}

TEST(AbGates, RanksThatDisagreeOnTheirArmNeverPassAGate) {
  TempDir dir;
  writeFleet(dir, 40);
  CommEntry rank0 = comm("0xe1", "control", 40), rank1 = comm("0xe1", "candidate", 40);
  rank1.rank = 1;
  dir.writeFile("pods/split-0/stats.1.json", testing::statisticsFile({rank0}));
  dir.writeFile("pods/split-1/stats.1.json", testing::statisticsFile({rank1}));
  std::string pods = dir.join("pods");

  auto report = runCommand(ab(pods));
  EXPECT_EQ(report.exitCode, 3) << "an input error even without a gate: the report lists it and is written";
  EXPECT_THAT(report.out, HasSubstr("**error**: communicator 0x00000000000000e1"));
  EXPECT_THAT(report.err, HasSubstr("nccl-roce ab: 1 communicator(s) left out (above): exit 3, ranks that disagree "
                                    "on their arm are an input error (such a job hangs)"));
  EXPECT_THAT(report.err, HasSubstr("nccl-roce ab: error: communicator 0x00000000000000e1: ranks disagree"));
  EXPECT_THAT(report.err, HasSubstr("can hang (NVIDIA/nccl#1136)"));
  EXPECT_THAT(report.err, HasSubstr("every pod of a job must load the same policy and experiment files"));

  auto gate = runCommand(ab(pods + " --fail-on-slower"));
  EXPECT_EQ(gate.exitCode, 3);
  EXPECT_THAT(gate.err, HasSubstr("nccl-roce ab: 1 communicator(s) left out (above): exit 3, --fail-on-slower never "
                                  "passes a gate on input errors"));
  EXPECT_THAT(gate.out, HasSubstr("**error**: communicator 0x00000000000000e1")) << "the report is written";
  EXPECT_EQ(runCommand(ab(pods + " --strict")).exitCode, 3);
}

TEST(AbGates, AnInputErrorOutranksASlowerVerdict) {
  TempDir dir;
  writeFleet(dir, 48);
  std::string pods = dir.join("pods");
  EXPECT_EQ(runCommand(ab(pods + " --fail-on-slower")).exitCode, 1);
  dir.writeFile("pods/decode-ll-control0/nccl.log", "node-a:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n");
  auto gate = runCommand(ab(pods + " --fail-on-slower"));
  EXPECT_EQ(gate.exitCode, 3) << "a verdict from inputs with errors is no verdict";
  EXPECT_THAT(gate.err, HasSubstr("skipped " + dir.join("pods/decode-ll-control0/nccl.log") +
                                  ": neither a statistics file nor an Inspector dump"));
  EXPECT_THAT(gate.err, HasSubstr("name only the statistics files (a quoted glob such as 'DIR/*/stats.*.json')"));
  auto named = runCommand(ab("'" + pods + "/*/stats.*.json' --fail-on-slower"));
  EXPECT_EQ(named.exitCode, 1) << "the remedy works: " << named.err;
}

// An empty file (Inspector creates its dump before its first record) loses nothing: --fail-on-slower passes it,
// --strict, which wants every input read whole, does not.
TEST(AbGates, AnEmptyFilePassesFailOnSlowerButNotStrict) {
  TempDir dir;
  writeFleet(dir, 40);
  dir.writeFile("pods/decode-ll-control0/inspector.log", "");
  std::string pods = dir.join("pods");
  auto gate = runCommand(ab(pods + " --fail-on-slower"));
  EXPECT_EQ(gate.exitCode, 0) << gate.err;
  EXPECT_THAT(gate.err, HasSubstr("inspector.log: empty"));
  auto strict = runCommand(ab(pods + " --strict"));
  EXPECT_EQ(strict.exitCode, 3);
  EXPECT_THAT(strict.err, HasSubstr("1 input(s) skipped (above): exit 3, --strict wants every input read whole"));
}

// A copy that stopped part-way stops `ab` naming the file and the remedy; --skip-unreadable goes on without it
// (listed), and a gate still refuses it.
TEST(AbGates, SkipUnreadableGoesOnWithoutTheFileButNoGatePasses) {
  TempDir dir;
  writeFleet(dir, 48);
  std::string whole = testing::statisticsFile({comm("0xc9", "control", 40)});
  dir.writeFile("pods/late/stats.1.json", whole.substr(0, whole.size() / 2));
  std::string pods = dir.join("pods");
  auto stopped = runCommand(ab(pods));
  EXPECT_EQ(stopped.exitCode, 3);
  EXPECT_THAT(stopped.err, HasSubstr(dir.join("pods/late/stats.1.json") + ": cut short after"));
  EXPECT_THAT(stopped.err, HasSubstr("re-copy it from its pod"));
  EXPECT_THAT(stopped.err, HasSubstr("--skip-unreadable"));

  auto skipped = runCommand(ab(pods + " --skip-unreadable"));
  EXPECT_EQ(skipped.exitCode, 0) << skipped.err;
  EXPECT_THAT(skipped.err, HasSubstr("nccl-roce ab: skipped " + dir.join("pods/late/stats.1.json") + ": cut short"));
  EXPECT_THAT(skipped.out, HasSubstr("- skipped: " + dir.join("pods/late/stats.1.json") + ": cut short"));
  EXPECT_THAT(skipped.out, HasSubstr("slower"));
  EXPECT_THAT(skipped.err, HasSubstr("a copy that stopped part-way): re-copy it from its pod"));
  EXPECT_EQ(runCommand(ab(pods + " --skip-unreadable --fail-on-slower")).exitCode, 3);
  EXPECT_EQ(runCommand(ab(pods + " --skip-unreadable --strict")).exitCode, 3);
}

TEST(AbGates, MixedExperimentsAreNamedAndExperimentPicksOneFromFiles) {
  TempDir dir;
  writeFleet(dir, 48, "decode-ll");
  writeFleet(dir, 40, "prefill-tree");
  std::string pods = dir.join("pods");
  auto mixed = runCommand(ab(pods + " --fail-on-slower"));
  EXPECT_EQ(mixed.exitCode, 3);
  EXPECT_THAT(mixed.err, HasSubstr("compare one experiment at a time: name it with --experiment (the inputs hold "
                                   "'decode-ll' (0x51a7), 'prefill-tree' (0x51a7))"));
  EXPECT_EQ(mixed.out, "");

  auto decode = runCommand(ab(pods + " --experiment decode-ll --fail-on-slower"));
  EXPECT_EQ(decode.exitCode, 1) << "choosing one experiment is no input error: " << decode.err;
  EXPECT_THAT(decode.out, HasSubstr("- note: --experiment decode-ll: communicator entries of other experiments left "
                                    "out ('prefill-tree' 8)"));
  auto prefill = runCommand(ab(pods + " --experiment prefill-tree --fail-on-slower"));
  EXPECT_EQ(prefill.exitCode, 0) << prefill.err;

  auto absent = runCommand(ab(pods + " --experiment decode-tree"));
  EXPECT_EQ(absent.exitCode, 3);
  EXPECT_THAT(absent.err, HasSubstr("no statistics of experiment 'decode-tree' in the inputs"));
}

TEST(AbGates, AFleetWithoutTimingsIsToldToLoadTheProfiler) {
  TempDir dir;
  for (const char* arm : {"control", "candidate"}) {
    CommEntry c = comm(arm[1] == 'o' ? "0xc1" : "0xd1", arm, 40);
    c.keys.clear();  // what a pod writes with the tuner loaded and the profiler not
    dir.writeFile(std::string("pods/") + arm + "/stats.1.json", testing::statisticsFile({c}));
  }
  auto r = runCommand(ab(dir.join("pods") + " --fail-on-slower"));
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_THAT(r.err, HasSubstr("no timings"));
  EXPECT_THAT(r.err, HasSubstr("NCCL_PROFILER_PLUGIN=roce beside NCCL_ROCE_STATS"));
  EXPECT_THAT(r.err, Not(HasSubstr("--control")));
}

// Policies write size ranges as 16K..64M (64M excluded) or 16K..=64M; --range takes those and its first form,
// 16K-64M (64M included), and the report prints the policy form.
TEST(AbGates, RangeTakesThePolicyFormAndPrintsIt) {
  TempDir dir;
  writeFleet(dir, 40);
  std::string pods = dir.join("pods");
  EXPECT_THAT(runCommand(ab(pods)).out, HasSubstr("**Summary 16K..=64M**"));
  EXPECT_THAT(runCommand(ab(pods + " --range 16K-64M")).out, HasSubstr("**Summary 16K..=64M**"));
  EXPECT_THAT(runCommand(ab(pods + " --range 64K..1M")).out, HasSubstr("**Summary 64K..1M**"));
  auto bad = runCommand(ab(pods + " --range 1M..64K"));
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_THAT(bad.err, HasSubstr("16K..64M"));
}

}  // namespace
}  // namespace nccl_roce::fleet

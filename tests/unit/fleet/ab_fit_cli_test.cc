// `nccl-roce ab fit` as an operator runs it: on an exploration fleet written by the plugin's own writers
// (tests/calibration/synthetic_fleet --exploration), the policy holds exactly the known best arms' rules and
// lints clean; thin evidence, mixed experiments and unreadable files exit 3 with nothing written, and so does
// a communicator whose ranks disagree; and
// `nccl-roce ab STATS...` works as before beside its new subcommand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "fleet/fleet_records.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"
#include "tests/calibration/ab_fit_simulation.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/fleet/fleet_fixtures.h"

namespace nccl_roce::fleet {
namespace {

using nccl_roce::testing::binaryPath;
using nccl_roce::testing::cliPath;
using nccl_roce::testing::runCommand;
using nccl_roce::testing::TempDir;
using testing::CommEntry;
using ::testing::HasSubstr;
using ::testing::Not;

// The exploration fleet synthetic_fleet writes: 24 communicators per explore arm, 48 of the control, 8% gains.
const calibration::FleetSpec& truth() {
  static const calibration::FleetSpec spec = calibration::explorationFleet(24, 48, 0.08);
  return spec;
}

std::string writeExplorationFleet(const TempDir& dir) {
  auto written = runCommand("mkdir -p " + dir.join("pods") + " && " + binaryPath("tests/calibration/synthetic_fleet") +
                            " --exploration " + dir.join("pods"));
  EXPECT_EQ(written.exitCode, 0) << written.err;
  EXPECT_THAT(written.out, HasSubstr("wrote 240 statistics files (120 communicators)"));
  return dir.join("pods");
}

std::string cat(const std::string& path) {
  return runCommand("cat " + path).out;
}

TEST(AbFitCli, ASyntheticFleetFittedByTheShippedCliGivesTheKnownBestArms) {
  TempDir dir;
  std::string pods = writeExplorationFleet(dir);
  auto fit = runCommand(cliPath() + " ab fit " + pods + " -o " + dir.join("policy.toml") + " --report " +
                        dir.join("fit.md") + " --json " + dir.join("fit.json"));
  ASSERT_EQ(fit.exitCode, 0) << fit.err;
  nlohmann::json json = nlohmann::json::parse(cat(dir.join("fit.json")));
  ASSERT_EQ(json["schema"], "nccl-roce.ab-fit/1");
  std::map<std::string, const calibration::ExploreArm*> armNamed;
  for (const auto& arm : calibration::exploreArms()) armNamed[arm.name] = &arm;
  std::map<std::string, std::string> ruled;  // bucket -> arm
  for (const auto& rule : json["rules"]) {
    const calibration::ExploreArm* arm = armNamed.at(rule["arm"].get<std::string>());
    EXPECT_EQ(rule["algorithm"], telemetry::algorithmName(arm->algorithm)) << "the configuration the arm's tuner ran";
    EXPECT_EQ(rule["protocol"], telemetry::protocolName(arm->protocol));
    EXPECT_EQ(rule["nodes"], 2);
    for (const auto& bucket : rule["buckets"]) ruled[bucket.get<std::string>()] = arm->name;
  }
  int gains = 0;
  for (int bucket : truth().buckets) {
    std::string best = calibration::bestArm(truth(), bucket);
    gains += !best.empty();
    auto rule = ruled.find(telemetry::bucketLabel(bucket));
    if (best.empty()) {
      EXPECT_EQ(rule, ruled.end()) << telemetry::bucketLabel(bucket) << ": no arm is faster, yet " << rule->second
                                   << " won";
    } else {
      EXPECT_NE(rule, ruled.end()) << telemetry::bucketLabel(bucket) << ": " << best << " is faster but has no rule";
      if (rule != ruled.end()) {
        EXPECT_EQ(rule->second, best) << telemetry::bucketLabel(bucket);
      }
    }
  }
  EXPECT_EQ(gains, 7);
  EXPECT_EQ(json["rules"].size(), 3u) << "neighbouring buckets of one arm merge: 16K..128K, 128K..512K, 16M..64M";
  std::string policy = cat(dir.join("policy.toml"));
  EXPECT_THAT(policy, HasSubstr("size = \"16K..128K\"\nnodes = 2\nalgorithm = \"ring\"\nprotocol = \"ll\"\n"));
  EXPECT_THAT(policy, HasSubstr("size = \"128K..512K\"\nnodes = 2\nalgorithm = \"tree\"\nprotocol = \"ll\"\n"));
  EXPECT_THAT(policy, HasSubstr("size = \"16M..64M\"\nnodes = 2\nalgorithm = \"ring\"\nprotocol = \"simple\"\n"));
  EXPECT_THAT(policy, HasSubstr("over all 39 arm x bucket challenges"));
  EXPECT_THAT(cat(dir.join("fit.md")), HasSubstr("| **rule** |"));
  auto lint = runCommand(cliPath() + " policy lint " + dir.join("policy.toml"));
  EXPECT_EQ(lint.exitCode, 0) << lint.out << lint.err;
}

TEST(AbFitCli, ThePolicyGoesToStdoutWithoutOutputAndAbStillComparesTheFleet) {
  TempDir dir;
  std::string pods = writeExplorationFleet(dir);
  auto fit = runCommand(cliPath() + " ab fit -q " + pods + " --policy-name decode-2n");
  ASSERT_EQ(fit.exitCode, 0) << fit.err;
  EXPECT_THAT(fit.out, HasSubstr("[policy]\nname = \"decode-2n\""));
  EXPECT_EQ(fit.err, "") << "--quiet";
  auto ab = runCommand(cliPath() + " ab " + pods + " --range 16K-128M");
  EXPECT_EQ(ab.exitCode, 0) << ab.err;
  EXPECT_THAT(ab.out, HasSubstr("## explore-ring-ll vs control: AllReduce"));
  auto none = runCommand(cliPath() + " ab");
  EXPECT_NE(none.exitCode, 0);
  EXPECT_THAT(none.err, HasSubstr("STATS or --prometheus is required"));
  auto fitNone = runCommand(cliPath() + " ab fit");
  EXPECT_NE(fitNone.exitCode, 0);
  EXPECT_THAT(fitNone.err, HasSubstr("STATS or --prometheus is required"));
}

// Three communicators per arm, each in its own pod's file.
void writeThinFleet(const TempDir& dir) {
  for (int i = 0; i < 3; ++i) {
    for (const char* arm : {"control", "explore-ring-ll"}) {
      CommEntry c;
      c.commId = std::string("0x") + (arm[0] == 'c' ? "c" : "e") + std::to_string(i);
      c.arm = arm;
      c.policyHash = arm[0] == 'c' ? "0x1" : "0x2";
      c.keys[0].microseconds = 40.0 + i;
      dir.writeFile(std::string("pods/") + arm + std::to_string(i) + "/stats.1.json", testing::statisticsFile({c}));
    }
  }
}

TEST(AbFitCli, ThinEvidenceExitsThreeSayingWhatToCollectAndWritesNothing) {
  TempDir dir;
  writeThinFleet(dir);
  auto fit = runCommand(cliPath() + " ab fit " + dir.join("pods") + " -o " + dir.join("policy.toml"));
  EXPECT_EQ(fit.exitCode, 3);
  EXPECT_THAT(fit.err, HasSubstr("arm 'explore-ring-ll' has at most 3 communicators per size bucket"));
  EXPECT_THAT(fit.err, HasSubstr("run the experiment longer"));
  EXPECT_EQ(runCommand("test -e " + dir.join("policy.toml")).exitCode, 1) << "nothing written";
  auto lowered = runCommand(cliPath() + " ab fit " + dir.join("pods") + " --min-communicators 3");
  EXPECT_NE(lowered.exitCode, 0) << "the minimum cannot be set below the calibrated one";
}

TEST(AbFitCli, MixedExperimentsAndUnreadableFilesExitThreeNamingTheFiles) {
  TempDir dir;
  writeThinFleet(dir);
  CommEntry other;
  other.experiment = "prefill-tree";
  dir.writeFile("pods/other/stats.9.json", testing::statisticsFile({other}));
  auto mixed = runCommand(cliPath() + " ab fit " + dir.join("pods") + " -o " + dir.join("policy.toml"));
  EXPECT_EQ(mixed.exitCode, 3);
  EXPECT_THAT(mixed.err, HasSubstr("statistics from different experiments"));
  EXPECT_THAT(mixed.err, HasSubstr("stats.9.json"));
  EXPECT_THAT(mixed.err, HasSubstr("name it with --experiment (the inputs hold 'decode-ll' (0x51a7), 'prefill-tree'"));
  auto chosen = runCommand(cliPath() + " ab fit " + dir.join("pods") + " --experiment decode-ll");
  EXPECT_EQ(chosen.exitCode, 3);
  EXPECT_THAT(chosen.err, HasSubstr("too little evidence")) << "past the mixing, on to the (thin) evidence";
  dir.writeFile("pods/other/stats.9.json", "{\"schema\": \"nccl-roce.stats/2\", \"communicators\": [");
  auto truncated = runCommand(cliPath() + " ab fit " + dir.join("pods") + " -o " + dir.join("policy.toml"));
  EXPECT_EQ(truncated.exitCode, 3);
  EXPECT_THAT(truncated.err, HasSubstr("stats.9.json: cut short"));
  EXPECT_EQ(runCommand("test -e " + dir.join("policy.toml")).exitCode, 1) << "nothing written";
}

// A policy is a rollout: under --strict it is never fitted from a fleet with a communicator left out.
TEST(AbFitCli, WritesNoPolicyWhenRanksOfACommunicatorDisagree) {
  TempDir dir;
  std::string pods = writeExplorationFleet(dir);
  // A communicator of the same experiment (its name and hash as the fleet's files give them) whose two ranks ran
  // different arms.
  std::string someFile = runCommand("find " + pods + " -name '*.json' | head -n 1").out;
  nlohmann::json written = nlohmann::json::parse(cat(someFile.substr(0, someFile.find('\n'))));
  CommEntry rank0, rank1;
  rank0.commId = rank1.commId = "0xe1";
  rank0.experiment = rank1.experiment = written["communicators"][0]["experiment"].get<std::string>();
  rank0.experimentHash = rank1.experimentHash = written["communicators"][0]["experiment_hash"].get<std::string>();
  rank1.rank = 1;
  rank1.arm = "explore-ring-ll";
  rank1.policyHash = "0x2";
  dir.writeFile("pods/split-0/stats.1.json", testing::statisticsFile({rank0}));
  dir.writeFile("pods/split-1/stats.1.json", testing::statisticsFile({rank1}));
  auto plain = runCommand(cliPath() + " ab fit " + pods + " -q -o " + dir.join("policy.toml"));
  EXPECT_EQ(plain.exitCode, 3) << plain.err;
  EXPECT_THAT(plain.err, HasSubstr("nccl-roce ab fit: error: communicator 0x00000000000000e1: ranks disagree"));
  EXPECT_THAT(plain.err, HasSubstr("exit 3, ranks that disagree on their arm are an input error"));
  EXPECT_EQ(runCommand("test -e " + dir.join("policy.toml")).exitCode, 1) << "a fit of part of a fleet is no fit";
  auto strict = runCommand(cliPath() + " ab fit " + pods + " --strict -o " + dir.join("strict.toml"));
  EXPECT_EQ(strict.exitCode, 3);
  EXPECT_THAT(strict.err, HasSubstr("1 communicator(s) left out (above): exit 3, --strict"));
  EXPECT_EQ(runCommand("test -e " + dir.join("strict.toml")).exitCode, 1) << "nothing written";
}

}  // namespace
}  // namespace nccl_roce::fleet

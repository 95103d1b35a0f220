// `nccl-roce sweep compare` and `sweep fit` as operators run them on log files: exit status, what stderr
// says when there is no verdict, the JSON contract, and the statistical flags both commands share.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/sweep/synthetic_sweep.h"

namespace nccl_roce::sweep {
namespace {

using nccl_roce::testing::cliPath;
using nccl_roce::testing::runCommand;
using nccl_roce::testing::TempDir;
using ::testing::HasSubstr;

// `noise.size()` replicate logs of one side in DIR/<side>/, B's times scaled by `factor`.
void writeSide(const TempDir& dir, const std::string& side, const std::vector<double>& noise, double factor,
               const char* type = "float") {
  for (size_t r = 0; r < noise.size(); ++r) {
    testing::SyntheticRun run;
    run.sizes = testing::powersOfTwo(1024, 64 << 20);
    double n = noise[r];
    run.timeUs = [n, factor](uint64_t s) { return testing::baseTimeUs(s) * n * factor; };
    std::string text = testing::syntheticLogText(run);
    for (size_t at = text.find(" float "); at != std::string::npos; at = text.find(" float ", at + 1)) {
      text.replace(at + 1, 5, type);
    }
    dir.writeFile(side + "/rep-" + std::to_string(r + 1) + ".log", text);
  }
}

const std::vector<double> kThree{0.99, 1.0, 1.01};

TEST(SweepCompareCli, ASlowerCandidateFailsTheGateAndTheJsonSaysWhy) {
  TempDir dir;
  writeSide(dir, "a", kThree, 1.0);
  writeSide(dir, "b", kThree, 1.2);
  auto plain = runCommand(cliPath() + " sweep compare " + dir.join("a") + " " + dir.join("b") + " --format json");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  nlohmann::json j = nlohmann::json::parse(plain.out);
  EXPECT_EQ(j["schema"], "nccl-roce.sweep.compare/2");
  EXPECT_EQ(j["series"][0]["summary"]["verdict"], "slower");
  EXPECT_EQ(j["options"]["min_replicates"], 2);
  auto gate = runCommand(cliPath() + " sweep compare " + dir.join("a") + " " + dir.join("b") + " --fail-on-slower");
  EXPECT_EQ(gate.exitCode, 1);
  EXPECT_THAT(gate.out, HasSubstr("B is 20.0% slower"));
}

TEST(SweepCompareCli, OneReplicateGivesNumbersAndSaysWhyThereIsNoVerdict) {
  TempDir dir;
  writeSide(dir, "a", {1.0}, 1.0);
  writeSide(dir, "b", kThree, 0.5);
  auto r = runCommand(cliPath() + " sweep compare " + dir.join("a") + " " + dir.join("b") + " --fail-on-slower");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_THAT(r.err, HasSubstr("all_reduce float sum, 16 ranks: no verdict over 16K..=64M: A has 1 value: a spread "
                               "needs at least 2"));
  EXPECT_THAT(r.out, HasSubstr("| 0.500 |"));
}

TEST(SweepCompareCli, SidesOfDifferentDataTypesAreNamedAndNotCompared) {
  TempDir dir;
  writeSide(dir, "a", kThree, 1.0);
  writeSide(dir, "b", kThree, 1.0, "half");
  auto r = runCommand(cliPath() + " sweep compare " + dir.join("a") + " " + dir.join("b") + " --fail-on-slower");
  EXPECT_EQ(r.exitCode, 3) << "an input error, never 1 (slower): nothing was compared";
  EXPECT_THAT(r.err, HasSubstr("no series (collective, type, op, ranks) was measured on both sides"));
  EXPECT_THAT(r.out, HasSubstr("(data type differs)"));
}

TEST(StatisticsFlags, AreTheSameForCompareAndFitAndFitKeepsItsReplicateFloor) {
  for (const char* command : {" sweep compare --help", " sweep fit --help"}) {
    auto help = runCommand(cliPath() + command);
    EXPECT_THAT(help.out, HasSubstr("--confidence")) << command;
    EXPECT_THAT(help.out, HasSubstr("--min-effect")) << command;
    EXPECT_THAT(help.out, HasSubstr("--min-replicates")) << command;
  }
  TempDir dir;
  writeSide(dir, "a", kThree, 1.0);
  auto fit = runCommand(cliPath() + " sweep fit " + dir.join("a") + " --min-replicates 3");
  EXPECT_EQ(fit.exitCode, 2);  // a usage error (CLI11 refused the value)
  EXPECT_THAT(fit.err, HasSubstr("--min-replicates"));
  auto compare =
      runCommand(cliPath() + " sweep compare " + dir.join("a") + " " + dir.join("a") + " --min-replicates 1");
  EXPECT_NE(compare.exitCode, 0);
}

}  // namespace
}  // namespace nccl_roce::sweep

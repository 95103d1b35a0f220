// `sweep compare` as a CI gate: exit 1 means "B is slower" and nothing else; input it cannot trust exits 3
// (cli/exit_status.h, docs/sweep.md). The common slip it guards against: a side that repeats the other, such as a
// sweep directory compared with one of its own subdirectories, which pulls every ratio toward 1.
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
using ::testing::Not;

// Three replicate logs of one configuration in DIR/<side>/, its times scaled by `factor`.
void writeSide(const TempDir& dir, const std::string& side, double factor) {
  const double noise[] = {0.99, 1.0, 1.01};
  for (int r = 0; r < 3; ++r) {
    testing::SyntheticRun run;
    run.sizes = testing::powersOfTwo(1024, 64 << 20);
    run.timeUs = [n = noise[r], factor](uint64_t s) { return testing::baseTimeUs(s) * n * factor; };
    dir.writeFile(side + "/rep-" + std::to_string(r + 1) + ".log", testing::syntheticLogText(run));
  }
}

std::string compare(const std::string& args) {
  return cliPath() + " sweep compare " + args;
}

// run-sweep.sh writes OUT/<configuration>/rep-N.log; comparing OUT with OUT/policy puts policy's logs on both
// sides. The report is still written, says so, and only --strict turns the warning into exit 3.
TEST(SweepCompareGates, ADirectoryComparedWithItsOwnSubdirectoryIsNamed) {
  TempDir dir;
  writeSide(dir, "sweeps/default", 1.0);
  writeSide(dir, "sweeps/policy", 0.9);
  std::string args = dir.join("sweeps") + " " + dir.join("sweeps/policy");
  auto warned = runCommand(compare(args + " --json " + dir.join("report.json")));
  EXPECT_EQ(warned.exitCode, 0) << warned.err;
  EXPECT_THAT(warned.err, HasSubstr("nccl-roce sweep compare: warning: B (policy) is a subset of A (sweeps): all "
                                    "its 3 log(s) are in A too (" +
                                    dir.join("sweeps/policy/rep-1.log") + " is given on both sides, and 2 more)"));
  EXPECT_THAT(warned.err, HasSubstr("pulls every ratio toward 1"));
  EXPECT_THAT(warned.out, HasSubstr("warning: B (policy) is a subset of A (sweeps)")) << "the report says it too";
  auto json = nlohmann::json::parse(runCommand("cat " + dir.join("report.json")).out);
  EXPECT_THAT(json["notes"].dump(), HasSubstr("is a subset of A"));

  auto strict = runCommand(compare(args + " --strict --fail-on-slower"));
  EXPECT_EQ(strict.exitCode, 3);
  EXPECT_THAT(strict.err, HasSubstr("error (--strict: exit 3): B (policy) is a subset of A"));
  EXPECT_THAT(strict.out, HasSubstr("## all_reduce")) << "the report is written either way";
}

// A log copied into both sides is the same measurement, whatever its path: it is found by its text.
TEST(SweepCompareGates, ALogCopiedIntoBothSidesIsFoundByItsText) {
  TempDir dir;
  writeSide(dir, "a", 1.0);
  writeSide(dir, "b", 1.1);
  runCommand("cp " + dir.join("a/rep-2.log") + " " + dir.join("b/rep-9.log"));
  auto r = runCommand(compare(dir.join("a") + " " + dir.join("b") + " --strict"));
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_THAT(r.err, HasSubstr("1 log(s) are on both sides (" + dir.join("b/rep-9.log") + " has the same text as " +
                               dir.join("a/rep-2.log") + ")"));

  auto same = runCommand(compare(dir.join("a") + " " + dir.join("a")));
  EXPECT_EQ(same.exitCode, 0);
  EXPECT_THAT(same.err, HasSubstr("warning: A (a) and B (a) are the same 3 log(s)"));
}

TEST(SweepCompareGates, SidesOfTheirOwnPassStrict) {
  TempDir dir;
  writeSide(dir, "a", 1.0);
  writeSide(dir, "b", 1.2);
  auto r = runCommand(compare(dir.join("a") + " " + dir.join("b") + " --strict --fail-on-slower"));
  EXPECT_EQ(r.exitCode, 1) << "slower, and nothing wrong with the inputs";
  EXPECT_THAT(r.err, Not(HasSubstr("both sides")));
}

TEST(SweepCompareGates, AnUnreadableLogIsAnInputErrorNotASlowerVerdict) {
  TempDir dir;
  writeSide(dir, "a", 1.0);
  auto r = runCommand(compare(dir.join("a") + " " + dir.join("missing") + " --fail-on-slower"));
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_THAT(r.err, HasSubstr(dir.join("missing")));
}

// Policies write size ranges as 16K..64M (64M excluded) or 16K..=64M; --range takes those, and the form it took
// first, 16K-64M (64M included). Reports print the policy form, so a summary's range can be pasted into a rule.
TEST(SweepCompareGates, RangeTakesThePolicyFormAndTheDashForm) {
  TempDir dir;
  writeSide(dir, "a", 1.0);
  writeSide(dir, "b", 1.2);
  std::string sides = dir.join("a") + " " + dir.join("b");
  auto policyForm = runCommand(compare(sides + " --range 16K..64M"));
  EXPECT_EQ(policyForm.exitCode, 0) << policyForm.err;
  EXPECT_THAT(policyForm.out, HasSubstr("Inference range 16K..64M (12 sizes)"));
  auto dash = runCommand(compare(sides + " --range 16K-64M"));
  EXPECT_EQ(dash.exitCode, 0) << dash.err;
  EXPECT_THAT(dash.out, HasSubstr("Inference range 16K..=64M (13 sizes)"));
  auto bad = runCommand(compare(sides + " --range 64M..16K"));
  EXPECT_EQ(bad.exitCode, 2) << "a usage error";
  EXPECT_THAT(bad.err, HasSubstr("--range"));
  EXPECT_THAT(bad.err, HasSubstr("16K..64M"));
}

}  // namespace
}  // namespace nccl_roce::sweep

// `nccl-roce policy lint` and `explain` as operators run them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

TEST(PolicyLintCli, ShippedPoliciesLintClean) {
  auto result = runCommand(cliPath() + " policy lint " + sourcePath("share/nccl-roce/policies/inference.toml") + " " +
                           sourcePath("share/nccl-roce/policies/nccl.toml") + " inference");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("inference.toml: ok (policy 'inference', 1 rules)"));
}

TEST(PolicyLintCli, ErrorsAreFileLineColumnAndTheExitIsNonZero) {
  TempDir dir;
  std::string bad = dir.writeFile("bad.toml", "[policy]\nname = \"x\"\n[[rule]]\nsize = \"64K..16K\"\nprotocol = \"LL65\"\n");
  std::string good = dir.writeFile("good.csv", "allreduce,0,65536,ring,ll,-1,-1,-1\n");
  auto result = runCommand(cliPath() + " policy lint " + bad + " " + good);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, bad + ":4:8: size: inverted range '64K..16K': 64K..16K holds no value\n" + bad +
                            ":5:12: unknown protocol 'LL65' (expected one of: ll, ll128, simple)\n");
  EXPECT_THAT(result.out, HasSubstr("good.csv: ok (policy 'nccl-csv', 1 rules)"));
}

TEST(PolicyLintCli, ExperimentsAreCheckedWithTheirArms) {
  TempDir dir;
  std::string ab = dir.writeFile("ab.toml", "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = \"a\"\npolicy = "
                                            "\"nccl\"\nweight = 50\n[[experiment.arm]]\nname = \"b\"\npolicy = \"inference\"\nweight = 50\n");
  auto result = runCommand(cliPath() + " policy lint " + ab);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("ok (experiment 'e', 2 arms)"));
}

TEST(PolicyExplainCli, SaysWhichRuleFiresWhatNcclIsToldAndTheFallbacks) {
  TempDir dir;
  std::string p = dir.writeFile("p.toml", "[policy]\nname = \"p\"\n[[rule]]\nname = \"mid\"\ncollective = \"allreduce\"\n"
                                          "size = \"64K..4M\"\nalgorithm = [\"nvlstree\", \"ring\"]\nprotocol = \"ll128\"\nchannels = 8\n");
  auto result = runCommand(cliPath() + " policy explain --policy " + p + " --coll allreduce --nodes 2 --ranks 16 --size 1M");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("rule: line 3 'mid' matches (size 64K..4M, nodes *, ranks *)"));
  EXPECT_THAT(result.out, HasSubstr("NCCL is told: cost 0.0 on NVLSTree/LL128; nChannels 8"));
  EXPECT_THAT(result.out, HasSubstr("  then Ring/LL128\n  then NCCL's own choice"));
  auto none = runCommand(cliPath() + " policy explain --policy " + p + " --nodes 2 --ranks 16 --size 16M");
  EXPECT_THAT(none.out, HasSubstr("rule: none matches"));
}

TEST(PolicyExplainCli, RejectsWhatCannotBeACall) {
  EXPECT_EQ(runCommand(cliPath() + " policy explain --coll allreduse --nodes 2 --ranks 16 --size 1M").exitCode, 2);
  EXPECT_EQ(runCommand(cliPath() + " policy explain --nodes 2 --ranks 16 --size 1Q").exitCode, 2);
  EXPECT_EQ(runCommand(cliPath() + " policy explain --nodes 4 --ranks 2 --size 1M").exitCode, 2);
  auto broken = runCommand(cliPath() + " policy explain --policy /nonexistent.toml --nodes 2 --ranks 16 --size 1M");
  EXPECT_EQ(broken.exitCode, 1);
  EXPECT_THAT(broken.out, HasSubstr("is unusable, so NCCL decides everything"));
}

}  // namespace
}  // namespace nccl_roce::testing

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
  EXPECT_THAT(result.out, HasSubstr("inference.toml: ok (policy 'inference', 1 rules, sha256:"));
}

TEST(PolicyLintCli, ErrorsAreFileLineColumnAndTheExitIsNonZero) {
  TempDir dir;
  std::string bad =
      dir.writeFile("bad.toml", "[policy]\nname = \"x\"\n[[rule]]\nsize = \"64K..16K\"\nprotocol = \"LL65\"\n");
  std::string good = dir.writeFile("good.csv", "allreduce,0,65536,ring,ll,-1,-1,-1\n");
  auto result = runCommand(cliPath() + " policy lint " + bad + " " + good);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, bad + ":4:8: size: inverted range '64K..16K': 64K..16K holds no value\n" + bad +
                            ":5:12: unknown protocol 'LL65' (expected one of: ll, ll128, simple)\n");
  EXPECT_THAT(result.out, HasSubstr("good.csv: ok (policy 'nccl-csv', 1 rules, sha256:"));
}

// What an operator is about to put in NCCL_ROCE_POLICY_INLINE is checked as the tuner will read it: "-" is stdin,
// named as the variable in errors, as `policy digest -` reads it.
TEST(PolicyLintCli, DashLintsAnInlinePolicyOnStdin) {
  auto good = runCommand("printf '[policy]\\nname = \"cand\"\\n' | " + cliPath() + " policy lint -");
  EXPECT_EQ(good.exitCode, 0) << good.err;
  EXPECT_THAT(good.out, HasSubstr("-: ok (policy 'cand', 0 rules, sha256:"));
  auto bad = runCommand("printf '[policy]\\nname = \"x\"\\n[[rule]]\\nprotocol = \"LL65\"\\n' | " + cliPath() +
                        " policy lint -");
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_THAT(bad.err, HasSubstr("NCCL_ROCE_POLICY_INLINE:4:12: unknown protocol 'LL65'"));
}

TEST(PolicyLintCli, ExperimentsAreCheckedWithTheirArms) {
  TempDir dir;
  std::string ab =
      dir.writeFile("ab.toml",
                    "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = \"a\"\npolicy = "
                    "\"nccl\"\nweight = 50\n[[experiment.arm]]\nname = \"b\"\npolicy = \"inference\"\nweight = 50\n");
  auto result = runCommand(cliPath() + " policy lint " + ab);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("ok (experiment 'e', 2 arms, sha256:"));
}

// One run lists every problem: the experiment's own (weights) and those of each arm's file, a file two arms share
// once, so an operator fixes them all at once instead of meeting the arm's after fixing the weights.
TEST(PolicyLintCli, AnExperimentsProblemsAndItsArmsAreListedInOneRun) {
  TempDir dir;
  std::string arm = dir.writeFile("cand.toml", "[policy]\nname = \"cand\"\n[env]\nNCCL_BUFFSIZE = \"banana\"\n");
  std::string ab = dir.writeFile("ab.toml",
                                 "[experiment]\nname = \"e\"\n"
                                 "[[experiment.arm]]\nname = \"a\"\npolicy = \"cand.toml\"\nweight = 50\n"
                                 "[[experiment.arm]]\nname = \"b\"\npolicy = \"cand.toml\"\nweight = 40\n");
  auto result = runCommand(cliPath() + " policy lint " + ab);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, ab + ":1:1: arm weights add up to 90, not 100\n" + ab +
                            ":3:1: arm 'a': policy 'cand.toml' is unusable (its problems follow)\n" + arm +
                            ":4:17: [env] NCCL_BUFFSIZE = \"banana\": NCCL reads it as a whole number and would take "
                            "\"banana\" as 0: write a whole number (decimal, or hex with 0x)\n" +
                            ab +
                            ":7:1: arm 'b': policy 'cand.toml' is unusable (its problems are listed with arm 'a')\n");
}

// What a pin names: for a policy file, the sha256 of its text without the final newline (so "$(cat f)" inline is
// the same policy); for an experiment, a digest that changes when an arm's file changes (a ConfigMap update of one
// arm must not pass under the old pin).
TEST(PolicyDigestCli, IsTheTextsSha256AndCoversAnExperimentsArms) {
  TempDir dir;
  std::string arm = dir.writeFile("cand.toml", "[policy]\nname = \"cand\"\n");
  std::string ab = dir.writeFile("ab.toml",
                                 "[experiment]\nname = \"e\"\n"
                                 "[[experiment.arm]]\nname = \"control\"\npolicy = \"nccl\"\nweight = 90\n"
                                 "[[experiment.arm]]\nname = \"cand\"\npolicy = \"cand.toml\"\nweight = 10\n");
  auto digest = runCommand(cliPath() + " policy digest " + arm);
  auto sum = runCommand("printf '%s' \"$(cat " + arm + ")\" | sha256sum");
  ASSERT_EQ(digest.exitCode, 0) << digest.err;
  EXPECT_EQ(digest.out, "sha256:" + sum.out.substr(0, 64) + "\n");
  auto catted = runCommand("printf '%s' \"$(cat " + arm + ")\" | " + cliPath() + " policy digest -");
  EXPECT_EQ(catted.out, digest.out) << "NCCL_ROCE_POLICY_INLINE=\"$(cat f)\" drops the final newline: the same policy";
  auto crlf = runCommand("printf '[policy]\\r\\nname = \"cand\"\\r\\n\\r\\n' | " + cliPath() + " policy digest -");
  EXPECT_EQ(crlf.out, digest.out) << "CRLF line ends and trailing blank lines read as the same text";
  auto commented =
      runCommand("printf '# fitted today\\n[policy]\\nname = \"cand\"\\n' | " + cliPath() + " policy digest -");
  EXPECT_NE(commented.out, digest.out) << "comments are part of the identity";
  auto before = runCommand(cliPath() + " policy digest " + ab);
  dir.writeFile("cand.toml", "[policy]\nname = \"cand\"\n[[rule]]\nprotocol = \"ll\"\n");
  auto after = runCommand(cliPath() + " policy digest " + ab);
  EXPECT_EQ(before.exitCode, 0);
  EXPECT_NE(before.out, after.out);
  auto inlined = runCommand("printf '[policy]\\nname = \"cand\"\\n' | " + cliPath() + " policy digest -");
  EXPECT_EQ(inlined.out, digest.out) << "an inline policy's digest is its text's";
  auto broken = runCommand(cliPath() + " policy digest " + dir.writeFile("bad.toml", "[policy\n"));
  EXPECT_EQ(broken.exitCode, 1);
  EXPECT_THAT(broken.err, HasSubstr("unusable, no digest"));
}

TEST(PolicyExplainCli, SaysWhichRuleFiresWhatNcclIsToldAndTheFallbacks) {
  TempDir dir;
  std::string p =
      dir.writeFile("p.toml",
                    "[policy]\nname = \"p\"\n[[rule]]\nname = \"mid\"\ncollective = \"allreduce\"\n"
                    "size = \"64K..4M\"\nalgorithm = [\"nvlstree\", \"ring\"]\nprotocol = \"ll128\"\nchannels = 8\n");
  auto result =
      runCommand(cliPath() + " policy explain --policy " + p + " --coll allreduce --nodes 2 --ranks 16 --size 1M");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("rule: line 3 'mid' matches (size 64K..4M, nodes *, ranks *)"));
  EXPECT_THAT(result.out, HasSubstr("NCCL is told: cost 0.0 on NVLSTree/LL128; nChannels 8"));
  EXPECT_THAT(result.out, HasSubstr("  then Ring/LL128\n  then NCCL's own choice"));
  auto none = runCommand(cliPath() + " policy explain --policy " + p + " --nodes 2 --ranks 16 --size 16M");
  EXPECT_THAT(none.out, HasSubstr("rule: none matches"));
}

TEST(PolicyExplainCli, NcclCsvFallbacksAreTheNextMatchingRules) {
  TempDir dir;
  std::string csv = dir.writeFile("nccl_tuner.conf",
                                  "allreduce,0,65536,nvls,simple,-1,-1,-1\n"
                                  "allreduce,0,1048576,tree,ll,4,2,-1\n"
                                  "allreduce,0,-1,ring,simple,-1,-1,-1\n");
  auto result = runCommand(cliPath() + " policy explain --policy " + csv + " --nodes 2 --ranks 16 --size 4K");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("NCCL is told: cost 0.0 on NVLS/Simple; nChannels 0 (NCCL decides)\n"
                                    "chunk size: NCCL's (NCCL computes it)\n"
                                    "if unavailable (cost -1 in NCCL's table):\n"
                                    "  then line 2: Tree/LL; nChannels 4\n"
                                    "  then line 3: Ring/Simple; nChannels 0 (NCCL decides)\n"
                                    "  then NCCL's own choice (and its own channel count and chunk size)\n"));
}

TEST(PolicyExplainCli, ShowsTheChunkSizeARuleSetsOrNccls) {
  TempDir dir;
  std::string p = dir.writeFile("p.toml",
                                "[policy]\nname = \"p\"\n[[rule]]\nname = \"big\"\ncollective = \"allreduce\"\n"
                                "size = \"4M..\"\nalgorithm = [\"tree\", \"ring\"]\nprotocol = \"simple\"\n"
                                "chunk_size = \"1M\"\n[[rule]]\nsize = \"..4M\"\nchunk_size = { ll128 = "
                                "\"x2\", simple = \"256K\" }\n");
  auto big = runCommand(cliPath() + " policy explain --policy " + p + " --nodes 2 --ranks 16 --size 16M");
  EXPECT_EQ(big.exitCode, 0) << big.err;
  EXPECT_THAT(big.out,
              HasSubstr("NCCL is told: cost 0.0 on Tree/Simple; nChannels 0 (NCCL decides)\n"
                        "chunk size: 1M (served through getChunkSize, NCCL 2.30.2 and later; older NCCL keeps "
                        "its own)\n"
                        "  for AllReduce on Tree/Simple NCCL can use at most 512K: NCCL's own chunk size there\n"
                        "if unavailable (cost -1 in NCCL's table):\n  then Ring/Simple\n"));
  auto small = runCommand(cliPath() + " policy explain --policy " + p + " --nodes 2 --ranks 16 --size 1M");
  EXPECT_THAT(small.out, HasSubstr("NCCL is told: keep its own algorithm and protocol; nChannels 0 (NCCL decides)\n"
                                   "chunk size: Simple 256K, LL128 NCCL's x2 (NCCL's for LL) (served through"));
  std::string none = dir.writeFile("none.toml", "[policy]\nname = \"n\"\n[[rule]]\nprotocol = \"ll\"\n");
  auto own = runCommand(cliPath() + " policy explain --policy " + none + " --nodes 2 --ranks 16 --size 1M");
  EXPECT_THAT(own.out, HasSubstr("chunk size: NCCL's (NCCL computes it)\n"));
}

TEST(PolicyLintCli, AChunkSizeNcclCannotUseIsAnErrorAtItsValue) {
  TempDir dir;
  std::string bad = dir.writeFile("chunks.toml",
                                  "[policy]\nname = \"c\"\n[[rule]]\ncollective = \"broadcast\"\n"
                                  "protocol = \"simple\"\nchunk_size = \"1M\"\n");
  auto result = runCommand(cliPath() + " policy lint " + bad);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, bad +
                            ":6:14: chunk_size 1M (Simple): above 512K, the most NCCL can use with Simple for the "
                            "calls this decides (one step of its buffer; docs/policy-format.md, \"Chunk size\")\n");
}

// The shipped example of an exploration experiment (share/nccl-roce/examples/explore-allreduce.toml).
std::string exploreExample() {
  return sourcePath("share/nccl-roce/examples/explore-allreduce.toml");
}

TEST(PolicyLintCli, TheShippedExplorationExampleLintsClean) {
  auto result = runCommand(cliPath() + " policy lint " + exploreExample());
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("explore-allreduce.toml: ok (experiment 'explore-allreduce', 1 arm and 6 generated "
                                    "arms sharing 6%, sha256:"));
}

TEST(PolicyLintCli, ExploringWhatNcclNeverRunsIsAnErrorAtItsName) {
  TempDir dir;
  std::string bad = dir.writeFile("explore.toml",
                                  "[experiment]\nname = \"e\"\n[[experiment.arm]]\nname = \"control\"\n"
                                  "policy = \"inference\"\nweight = 95\n[experiment.explore]\nweight = 5\n"
                                  "collective = \"allreduce\"\nalgorithm = [\"ring\", \"nvls\"]\n"
                                  "protocol = [\"simple\", \"ll128\"]\n");
  auto result = runCommand(cliPath() + " policy lint " + bad);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, bad + ":11:23: NCCL never runs NVLS with LL128 (it runs NVLS with Simple only)\n");
}

TEST(PolicyExplainCli, ShowsEveryArmOfAnExplorationWithItsShareAndWhatItDoesWithTheCall) {
  // comm 5: bucket 95 of experiment 'explore-allreduce' (the explore share is 94..99), generated arm 4 of 6.
  auto result = runCommand(cliPath() + " policy explain --policy " + exploreExample() +
                           " --nodes 2 --ranks 16 --size 1M --comm-id 5");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("policy: explore-tree-ll128 (" + exploreExample() +
                                    " [experiment.explore] over builtin:inference, sha256:"));
  EXPECT_THAT(result.out, HasSubstr("experiment 'explore-allreduce' (sha256:"));
  EXPECT_THAT(result.out, HasSubstr(") gives comm 0x0000000000000005 the arm 'explore-tree-ll128'\n"));
  EXPECT_THAT(result.out, HasSubstr("rule: line 21 'explore tree/ll128' matches (size 16K..64M, nodes 2.., ranks *)\n"
                                    "NCCL is told: cost 0.0 on Tree/LL128; nChannels 0 (NCCL decides)\n"));
  EXPECT_THAT(result.out, HasSubstr("  control: 94% of communicators, policy 'inference' (builtin:inference)\n"
                                    "    this call: no rule matches, NCCL decides\n"
                                    "  exploration: 6% of communicators, split evenly over 6 generated arms;"));
  EXPECT_THAT(result.out,
              HasSubstr("    explore-ring-ll: 1% of communicators, forces Ring/LL for AllReduce of 16K..64M "
                        "bytes on nodes 2..\n"
                        "      this call: rule line 21 'explore ring/ll': Ring/LL, else NCCL's own choice; "
                        "nChannels 0 (NCCL decides)\n"));
  EXPECT_THAT(result.out, HasSubstr("    explore-tree-simple: 1% of communicators"));
  auto small = runCommand(cliPath() + " policy explain --policy " + exploreExample() +
                          " --nodes 2 --ranks 16 --size 4K --comm-id 1");
  EXPECT_THAT(small.out, HasSubstr("the arm 'control'"));
  EXPECT_THAT(small.out,
              HasSubstr("      this call: rule line 13 'small-multinode-allreduce-ll': LL on NCCL's cheapest "
                        "algorithm offering it, else NCCL's own choice; nChannels 0 (NCCL decides)\n"))
      << "below the explored sizes every generated arm decides as the base";
}

// Pipeline parallelism's sends and expert parallelism's all-to-all never reach a tuner: explain says so plainly
// instead of refusing the name, so an operator learns which of a layout's traffic a policy can reach.
TEST(PolicyExplainCli, PointToPointOperationsAreSaidToBeBeyondAnyPolicy) {
  for (const char* op : {"send", "recv", "alltoall"}) {
    auto r = runCommand(cliPath() + " policy explain --coll " + op + " --size 1M --nodes 2 --ranks 16");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(std::string("call: ") + op + " on 16 ranks / 2 nodes\n"));
    EXPECT_THAT(r.out, HasSubstr("NCCL does not ask a tuner for point-to-point operations"));
    EXPECT_THAT(r.out, HasSubstr("nccl-roce's profiler does not time them"));
  }
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

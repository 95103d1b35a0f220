// run-sweep.sh and gpu-proof.sh as operators run them, on this GPU-less machine: the dry run prints exactly
// what would run, and a sweep with the stand-in all_reduce_perf (fake_all_reduce_perf.sh, a fixed timing model)
// goes end to end through the runner, `sweep fit` and the tuner's lint.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "common/file.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string runner() {
  return sourcePath("nccl-tests-integration/scripts/run-sweep.sh");
}
std::string fakePerf() {
  return sourcePath("tests/unit/sweep/fake_all_reduce_perf.sh");
}

std::string read(const std::string& path) {
  auto text = readFileBounded(path, 1 << 20);
  return text.isOk() ? *text : "<unreadable: " + text.status().toString() + ">";
}

TEST(RunSweepDryRun, PrintsEveryRunInterleavedWithItsExactEnvironmentAndWritesNothing) {
  TempDir dir;
  auto r = runCommand(runner() + " --binary /opt/nccl-tests/all_reduce_perf --out " + dir.join("out") +
                      " --default --forced Tree/LL --replicates 2 --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(
      r.out,
      "# default, replicate 1 of 2 -> " + dir.join("out") +
          "/default/rep-1.log\n"
          "env NCCL_ROCE_POLICY=nccl /opt/nccl-tests/all_reduce_perf -b 8 -e 64M -f 2 -n 20 -w 5 -c 1\n"
          "# tree-ll, replicate 1 of 2 -> " +
          dir.join("out") +
          "/tree-ll/rep-1.log\n"
          "env NCCL_ROCE_POLICY=nccl NCCL_ALGO=Tree NCCL_PROTO=LL /opt/nccl-tests/all_reduce_perf -b 8 -e 64M -f 2 "
          "-n 20 -w 5 -c 1\n"
          "# default, replicate 2 of 2 -> " +
          dir.join("out") +
          "/default/rep-2.log\n"
          "env NCCL_ROCE_POLICY=nccl /opt/nccl-tests/all_reduce_perf -b 8 -e 64M -f 2 -n 20 -w 5 -c 1\n"
          "# tree-ll, replicate 2 of 2 -> " +
          dir.join("out") +
          "/tree-ll/rep-2.log\n"
          "env NCCL_ROCE_POLICY=nccl NCCL_ALGO=Tree NCCL_PROTO=LL /opt/nccl-tests/all_reduce_perf -b 8 -e 64M -f 2 "
          "-n 20 -w 5 -c 1\n");
  EXPECT_NE(::access(dir.join("out").c_str(), F_OK), 0) << "a dry run writes nothing";
}

TEST(RunSweepDryRun, TheLocalLauncherGivesEachRankItsOwnHostIdAndTheRendezvous) {
  auto r = runCommand(runner() +
                      " --binary drv --out o --policy inference --replicates 1 --launcher local --np 2 "
                      "--distinct-hostid --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NCCL_TUNER_PLUGIN=roce NCCL_ROCE_POLICY=inference NCCL_HOSTID="));
  EXPECT_THAT(r.out, HasSubstr("-rank1 drv -b 8 -e 64M -f 2 -n 20 -w 5 -c 1 --rank 1 --nranks 2 --rendezvous "
                               "o/policy-inference/rep-1.uid\n"));
}

TEST(RunSweepArguments, MistakesExitTwoAndSayWhat) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"--out o --default", "--binary PATH is required"},
      {"--binary b --out o", "nothing to run"},
      {"--binary b --out o --forced any/any", "forces nothing"},
      {"--binary b --out o --default --launcher mpirun", "needs --np N"},
      {"--binary b --out o --default --default", "configuration given twice: default"},
      {"--binary b --out o --default --env 1X=2", "--env needs NAME=VALUE"},
  };
  for (const auto& c : cases) {
    auto r = runCommand(runner() + " " + c.args + " --dry-run");
    EXPECT_EQ(r.exitCode, 2) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
  }
}

TEST(RunSweep, RunsEveryConfigurationAndFitFindsTheModelsBestChoice) {
  TempDir dir;
  std::string out = dir.join("sweep");
  auto run = runCommand(runner() + " --binary " + fakePerf() + " --out " + out +
                        " --default --algos Ring,Tree --protos LL --replicates 5 --max-bytes 1M");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  std::string manifest = read(out + "/manifest.tsv");
  EXPECT_EQ(std::count(manifest.begin(), manifest.end(), '\n'), 1 + 3 * 5) << manifest;  // fit needs 5
  EXPECT_THAT(manifest, Not(::testing::ContainsRegex("\t[0-9]+\t[1-9][0-9]*\t"))) << "every run exits 0";
  std::string log = read(out + "/tree-ll/rep-2.log");
  EXPECT_EQ(log.rfind("# nccl-roce-env: NCCL_ROCE_POLICY=nccl\n# nccl-roce-env: NCCL_ALGO=Tree\n", 0), 0u) << log;

  std::string policy = dir.join("fitted.toml");
  auto fit = runCommand(cliPath() + " sweep fit " + out + " --nodes 2 -o " + policy);
  ASSERT_EQ(fit.exitCode, 0) << fit.err;
  // In the stand-in's model Tree/LL has the lowest latency: it wins the small sizes; NCCL's default there
  // (Ring/LL128) is kept nowhere below 4K.
  std::string text = read(policy);
  EXPECT_THAT(text, HasSubstr("algorithm = \"tree\""));
  EXPECT_THAT(text, HasSubstr("protocol = \"ll\""));
  auto lint = runCommand(cliPath() + " policy lint " + policy);
  EXPECT_EQ(lint.exitCode, 0) << lint.out << lint.err;
}

// Chunk size as one more dimension: forced through our tuner (NCCL has no variable for it), read back from
// each log, fitted under the same false-discovery control, and written into the rule.
TEST(RunSweep, AForcedChunkSizeIsFittedAndWrittenIntoTheRule) {
  TempDir dir;
  std::string out = dir.join("sweep");
  auto run = runCommand(runner() + " --binary " + fakePerf() + " --out " + out +
                        " --default --algos Ring --protos Simple --chunk-sizes 1M --forced Ring/Simple "
                        "--replicates 5 --min-bytes 1M --max-bytes 64M");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  std::string log = read(out + "/ring-simple-chunk1m/rep-1.log");
  EXPECT_EQ(log.rfind("# nccl-roce-env: NCCL_TUNER_PLUGIN=roce\n# nccl-roce-env: NCCL_ROCE_POLICY=nccl\n"
                      "# nccl-roce-env: NCCL_ALGO=Ring\n# nccl-roce-env: NCCL_PROTO=Simple\n"
                      "# nccl-roce-env: NCCL_ROCE_CHUNK_SIZE=1M\n",
                      0),
            0u)
      << log;
  std::string policy = dir.join("fitted.toml");
  auto fit = runCommand(cliPath() + " sweep fit " + out + " --nodes 2 -o " + policy);
  ASSERT_EQ(fit.exitCode, 0) << fit.err;
  std::string text = read(policy);
  // The model: Simple with a 1M chunk moves 25% more per second than Simple with NCCL's, which beats LL128
  // (NCCL's default here) from 1M up.
  EXPECT_THAT(text, HasSubstr("# Ring/Simple/chunk 1M for *: measured at 1M-64M (7 sizes)"));
  EXPECT_THAT(text, HasSubstr("name = \"fit-allreduce-2r-ring-simple-chunk1m-*\"\n"));
  EXPECT_THAT(text, HasSubstr("algorithm = \"ring\"\nprotocol = \"simple\"\nchunk_size = \"1M\"\n"));
  EXPECT_THAT(text, HasSubstr("against Ring/Simple Ring/Simple/chunk 1M.")) << "both measured";
  auto lint = runCommand(cliPath() + " policy lint " + policy);
  EXPECT_EQ(lint.exitCode, 0) << lint.out << lint.err;
}

TEST(RunSweep, AFailingRunIsRecordedAndTheRunnerExitsOne) {
  TempDir dir;
  auto run = runCommand("FAKE_FAIL=1 " + runner() + " --binary " + fakePerf() + " --out " + dir.join("s") +
                        " --default --replicates 1 --max-bytes 64K");
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_THAT(read(dir.join("s/manifest.tsv")), HasSubstr("default\t1\t3\t"));
  EXPECT_THAT(run.err, HasSubstr("default replicate 1 exited with status 3"));
}

TEST(GpuProofDryRun, RunsTheSweepTheGraphsAndTheSwitchbackWithEveryPluginThenDecides) {
  auto r = runCommand(sourcePath("nccl-tests-integration/scripts/gpu-proof.sh") +
                      " --driver drv --plugin-dir /opt/nccl-roce/lib --cli nccl-roce --out o --replicates 1 --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* expected :
       {"# default, replicate 1 of 1 -> o/sweep/default/rep-1.log",
        "# policy-gpu-proof-divergent, replicate 1 of 1 -> o/sweep/policy-gpu-proof-divergent/rep-1.log",
        "NCCL_ROCE_POLICY=o/gpu-proof-divergent.toml",
        "# policy-gpu-proof-divergent, replicate 1 of 1 -> o/graph/policy-gpu-proof-divergent/rep-1.log",
        "drv -b 4K -e 16M -f 16 -n 5 -w 1 -c 1 -G 10 --rank 1 --nranks 2",
        "# policy-gpu-proof-switchback, replicate 1 of 1 -> o/switchback/policy-gpu-proof-switchback/rep-1.log",
        "NCCL_NET_PLUGIN=roce NCCL_TUNER_PLUGIN=roce NCCL_ENV_PLUGIN=roce NCCL_PROFILER_PLUGIN=roce",
        "NCCL_DEBUG_SUBSYS=INIT,ENV,NET,TUNING NCCL_ROCE_STATS=o/sweep/stats", "LD_LIBRARY_PATH=/opt/nccl-roce/lib",
        "NCCL_ROCE_STATS=o/switchback/stats", "\nnccl-roce proof o -o o/summary.md --json o/summary.json\n"}) {
    EXPECT_THAT(r.out, HasSubstr(expected));
  }
  // Without nvidia-cuda-mps-control (this machine) the ranks time-slice, and it says so before anything runs.
  if (runCommand("command -v nvidia-cuda-mps-control").exitCode != 0) {
    EXPECT_THAT(r.out, HasSubstr("# MPS: none: nvidia-cuda-mps-control not found, so the ranks' processes time-slice "
                                 "the GPU\n"));
  }
  auto off = runCommand(sourcePath("nccl-tests-integration/scripts/gpu-proof.sh") +
                        " --driver drv --plugin-dir p --out o --mps off --dry-run");
  EXPECT_THAT(off.out, HasSubstr("# MPS: off (--mps off): the ranks' processes time-slice the GPU\n"));
  auto bad = runCommand(sourcePath("nccl-tests-integration/scripts/gpu-proof.sh") +
                        " --driver drv --plugin-dir p --out o --ranks 1 --dry-run");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_THAT(bad.err, HasSubstr("--ranks takes a process count of 2 or more, got '1'"));
}

TEST(GpuProofDryRun, FindsNcclInPyTorchsWheelWhenTheSystemHasNone) {
  // A site-packages as nvidia-nccl-cu13 and nvidia-cuda-runtime lay it out: `nvidia` a namespace package.
  TempDir dir;
  dir.writeFile("site/nvidia/nccl/lib/libnccl.so.2", "");
  dir.writeFile("site/nvidia/cu13/lib/libcudart.so.13", "");
  auto r =
      runCommand("PYTHONPATH=" + dir.join("site") + " " + sourcePath("nccl-tests-integration/scripts/gpu-proof.sh") +
                 " --driver drv --plugin-dir p --out o --replicates 1 --dry-run");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# NCCL: PyTorch's pip wheel (" + dir.join("site/nvidia/nccl/lib") + ", " +
                               dir.join("site/nvidia/cu13/lib") + ")"));
  EXPECT_THAT(r.out, HasSubstr("LD_LIBRARY_PATH=p:" + dir.join("site/nvidia/cu13/lib") + ":" +
                               dir.join("site/nvidia/nccl/lib")));
}

}  // namespace
}  // namespace nccl_roce::testing

// The readers of directories others can write (docs/security.md), attacked as another pod sharing the directory
// could: a FIFO (a reader that opens it waits forever), a link to /dev/zero (an endless read), links to a file and
// to a directory outside, a sparse terabyte, each planted under a name the command reads. `ab`, `ab fit`, `sweep
// parse|compare|fit`, `policy verify` and `proof` read none of them, name each with the reason, still read what is
// theirs, and never hang (each command runs under `timeout`: exit 124 is a hang). A file the user names on the
// command line is theirs to choose: a link there is followed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kRun = "tests/data/gpu-runs/h200-nccl-2.28.9";
const std::string kLink = ": a symbolic link, not followed (name its target to read it)";
const std::string kFifo = ": a FIFO, not a regular file";

CommandResult run(const std::string& arguments) {
  CommandResult r = runCommand("timeout 60 " + cliPath() + " " + arguments);
  EXPECT_NE(r.exitCode, 124) << "hung: " << arguments;
  return r;
}

void shell(const std::string& command) {
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

class SharedDirectoryReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    shell("cp " + sourcePath(kRun + "/torch-graphs/stats.793.json") + " " + outside_.join("stats.9.json"));
    makeDirectories(outside_.join("pod-x"));
    shell("cp " + sourcePath(kRun + "/torch-graphs/stats.793.json") + " " + outside_.join("pod-x/stats.8.json"));
  }
  // Plants, in `dir`, every attack under names ending in `suffix` ("stats.N.json", "rep-N.log").
  void plant(const std::string& dir, const std::string& fifo, const std::string& zero, const std::string& file,
             const std::string& directory) {
    shell("mkfifo " + dir + "/" + fifo);
    shell("ln -s /dev/zero " + dir + "/" + zero);
    shell("ln -s " + outside_.join("stats.9.json") + " " + dir + "/" + file);
    shell("ln -s " + outside_.join("pod-x") + " " + dir + "/" + directory);
  }
  TempDir shared_, outside_;
};

TEST_F(SharedDirectoryReaders, AbAndAbFitReadOnlyRegularFilesAndNameTheRest) {
  makeDirectories(shared_.join("pod-a"));
  makeDirectories(shared_.join("pod-b"));
  makeDirectories(shared_.join("pod-c"));
  shell("cp " + sourcePath(kRun + "/torch-graphs/stats.792.json") + " " + shared_.join("pod-a/"));
  shell("cp " + sourcePath(kRun + "/torch-graphs/stats.793.json") + " " + shared_.join("pod-b/"));
  plant(shared_.join("pod-c"), "stats.1.json", "stats.2.json", "stats.3.json", "pod-d");
  for (const std::string& command : {std::string("ab"), std::string("ab fit -o ") + shared_.join("fit.toml")}) {
    CommandResult r = run(command + " " + shared_.path());
    std::string prefix = "nccl-roce " + command.substr(0, command.find(" -o")) + ": skipped ";
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("pod-c/stats.1.json") + kFifo)) << command;
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("pod-c/stats.2.json") + kLink));
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("pod-c/stats.3.json") + kLink));
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("pod-c/pod-d") + kLink));
  }
  CommandResult ab = run("ab --format json " + shared_.path());
  EXPECT_EQ(ab.exitCode, 0) << ab.err;
  EXPECT_THAT(ab.out, HasSubstr("\"control\"")) << "the two real files are read";
  // A link could point at statistics: a gate does not pass with one left out; a FIFO or a device could hold none.
  CommandResult linked = run("ab --fail-on-slower " + shared_.path());
  EXPECT_EQ(linked.exitCode, 3);
  EXPECT_THAT(linked.err, HasSubstr("3 input(s) skipped (above): exit 3"));
  shell("rm " + shared_.join("pod-c/stats.2.json") + " " + shared_.join("pod-c/stats.3.json") + " " +
        shared_.join("pod-c/pod-d"));
  // The links gone, nothing skipped holds back the gate; these timings are the GPU run's time-sliced ones, which
  // no gate passes on either (the gate's own reason, not the FIFO's).
  CommandResult unlinked = run("ab --fail-on-slower " + shared_.path());
  EXPECT_EQ(unlinked.exitCode, 3);
  EXPECT_THAT(unlinked.err, Not(HasSubstr("input(s) skipped")));
  EXPECT_THAT(unlinked.err, HasSubstr("flat timings (above): exit 3"));

  // A glob's match lies beneath the glob's directory: a link it passes through is not followed either.
  plant(shared_.join("pod-c"), "x.json", "stats.2.json", "stats.3.json", "pod-d");
  CommandResult glob = run("ab '" + shared_.path() + "/*/stats.*.json'");
  EXPECT_THAT(glob.err, HasSubstr("skipped " + shared_.join("pod-c/stats.3.json") + kLink));
  CommandResult deep = run("ab '" + shared_.path() + "/*/*/stats.*.json' " + shared_.join("pod-a"));
  EXPECT_THAT(deep.err, HasSubstr("skipped " + shared_.join("pod-c/pod-d/stats.8.json") + ": " +
                                  shared_.join("pod-c/pod-d") + kLink))
      << "glob(3) matched through the planted link; the match is not read";

  // A sparse terabyte: refused unread, naming the bound.
  shell("truncate -s 1T " + shared_.join("pod-c/stats.4.json"));
  CommandResult huge = run("ab " + shared_.path());
  EXPECT_EQ(huge.exitCode, 3);
  EXPECT_THAT(huge.err, HasSubstr(shared_.join("pod-c/stats.4.json") + ": more than 1073741824 bytes"));
  CommandResult skipping = run("ab --skip-unreadable " + shared_.path());
  EXPECT_EQ(skipping.exitCode, 0) << skipping.err;
  EXPECT_THAT(skipping.err, HasSubstr("skipped " + shared_.join("pod-c/stats.4.json") + ": more than 1073741824"));
}

// The user names the file: a link there is followed, as they chose it.
TEST_F(SharedDirectoryReaders, AFileNamedOnTheCommandLineIsReadThroughItsLink) {
  shell("ln -s " + outside_.join("stats.9.json") + " " + shared_.join("mine.json"));
  CommandResult r = run("ab --format json " + shared_.join("mine.json"));
  EXPECT_THAT(r.err, Not(HasSubstr("skipped")));
  EXPECT_THAT(r.out, HasSubstr("\"candidate\""));
  CommandResult fifo = run("ab " + [&] {
    shell("mkfifo " + shared_.join("named.json"));
    return shared_.join("named.json");
  }());
  EXPECT_EQ(fifo.exitCode, 3) << "a FIFO named is refused, not waited on";
  EXPECT_THAT(fifo.err, HasSubstr(shared_.join("named.json") + kFifo));
}

TEST_F(SharedDirectoryReaders, SweepCommandsAndPolicyVerifyReadOnlyRegularLogs) {
  shell("cp -r " + sourcePath(kRun + "/sweep/default") + " " + shared_.join("a"));
  plant(shared_.join("a"), "rep-9.log", "rep-8.log", "rep-7.log", "sub");
  const std::string b = sourcePath(kRun + "/sweep/policy-inference");
  struct Case {
    std::string command, arguments;
    int exit;
  };
  for (const Case& c :
       {Case{"sweep parse", shared_.join("a"), 0}, Case{"sweep compare", shared_.join("a") + " " + b, 0},
        Case{"sweep fit", shared_.join("a"), 3}, Case{"policy verify", "--policy inference " + shared_.join("a"), 3}}) {
    CommandResult r = run(c.command + " " + c.arguments);
    EXPECT_EQ(r.exitCode, c.exit) << c.command << ": " << r.err;
    std::string prefix = "nccl-roce " + c.command + ": skipped ";
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("a/rep-9.log") + kFifo)) << c.command;
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("a/rep-8.log") + kLink)) << c.command;
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("a/rep-7.log") + kLink)) << c.command;
    EXPECT_THAT(r.err, HasSubstr(prefix + shared_.join("a/sub") + kLink)) << c.command;
  }
  EXPECT_EQ(run("sweep compare --strict " + shared_.join("a") + " " + b).exitCode, 3)
      << "--strict wants every entry of the directories given read";
}

TEST_F(SharedDirectoryReaders, ProofReadsOnlyRegularFiles) {
  shell("cp -r " + sourcePath(kRun) + " " + shared_.join("out"));
  CommandResult before = run("proof --format json " + shared_.join("out"));
  ASSERT_EQ(before.exitCode, 1) << before.err;
  plant(shared_.join("out/sweep"), "stats.1.json", "stats.2.json", "stats.3.json", "planted");
  plant(shared_.join("out/sweep/default"), "rank9.log", "rank8.log", "rank7.out", "sub");
  shell("ln -s " + outside_.join("pod-x") + " " + shared_.join("out/graph"));
  CommandResult after = run("proof --format json " + shared_.join("out"));
  EXPECT_EQ(after.exitCode, 1) << after.err;
  EXPECT_EQ(after.out, before.out) << "the same report: nothing planted was read";
  for (const std::string& entry :
       {"sweep/stats.1.json" + kFifo, "sweep/stats.2.json" + kLink, "sweep/stats.3.json" + kLink,
        "sweep/planted" + kLink, "sweep/default/rank9.log" + kFifo, "sweep/default/rank8.log" + kLink,
        "sweep/default/rank7.out" + kLink, "graph" + kLink}) {
    EXPECT_THAT(after.err, HasSubstr("nccl-roce proof: skipped " + shared_.join("out/" + entry)));
  }
}

}  // namespace
}  // namespace nccl_roce::testing

// Every usage error of every `nccl-roce` command exits 2 with CLI11's message on stderr and nothing on stdout, so
// scripts and CI gates can tell "you called it wrong" from a result (1: a check failed, an arm is slower, ...).
// Per command: an unknown flag, a bad value, and a missing input; and each --help states the exit statuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

struct Misuse {
  const char* command;       // the subcommand, as typed
  const char* badFlag;       // arguments with an unknown flag
  const char* badValue;      // arguments with a value the option refuses
  const char* missingInput;  // arguments lacking a required input, or naming one that does not exist
};

// A real file for the positional inputs, so only the misuse under test is wrong.
const std::string kLog = sourcePath("tests/data/nccl-tests/aws-p5_2node_h100x16_efa_allreduce_default-run-a.txt");
const std::string kSnapshot = sourcePath("share/nccl-roce/examples/sriov-pod-8rail.json");

std::vector<Misuse> misuses() {
  static const std::string log = kLog, snap = kSnapshot;
  static const std::string explain = "--nodes 2 --ranks 16 --size 1M";
  static const std::string bothSources = "--snapshot " + snap + " --sysfs-root /sys";
  static const std::string compareBad = "--confidence 2 " + log + " " + log;
  static const std::string parseBad = "--format yaml " + log, fitBad = "--min-replicates 1 " + log;
  static const std::string abBad = "--min-communicators 1 " + log, abFitBad = "--min-communicators 5 " + log;
  static const std::string withLog = "--no-such-flag " + log, withTwoLogs = "--no-such-flag " + log + " " + log;
  return {
      {"detect", "--no-such-flag", "--format yaml", "--ifaddrs /nonexistent/ifaddrs"},
      {"env", "--no-such-flag", bothSources.c_str(), "--snapshot /nonexistent/snap.json"},
      {"snapshot", "--no-such-flag", "--sysfs-root /nonexistent", "--ifaddrs /nonexistent/ifaddrs"},
      {"doctor", "--no-such-flag", "--format yaml", "--snapshot /nonexistent/snap.json"},
      {"policy lint", "--no-such-flag inference", "", ""},
      {"policy digest", "--no-such-flag inference", "", ""},
      {"policy explain", "--no-such-flag --nodes 1 --ranks 1 --size 1M", "--nodes 0 --ranks 16 --size 1M",
       "--nodes 2 --ranks 16"},
      {"sweep parse", withLog.c_str(), parseBad.c_str(), ""},
      {"sweep compare", withTwoLogs.c_str(), compareBad.c_str(), log.c_str()},
      {"sweep fit", withLog.c_str(), fitBad.c_str(), ""},
      {"ab", withLog.c_str(), abBad.c_str(), ""},
      {"ab fit", withLog.c_str(), abFitBad.c_str(), ""},
  };
}

void expectUsageError(const std::string& arguments) {
  SCOPED_TRACE("nccl-roce " + arguments);
  CommandResult r = runCommand(cliPath() + " " + arguments);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("Run with --help for more information.")) << "CLI11's message";
  EXPECT_EQ(r.out, "");
}

TEST(UsageErrors, AnUnknownFlagExits2) {
  for (const Misuse& m : misuses()) expectUsageError(std::string(m.command) + " " + m.badFlag);
}

TEST(UsageErrors, AValueTheOptionRefusesExits2) {
  for (const Misuse& m : misuses()) {
    if (*m.badValue != '\0') expectUsageError(std::string(m.command) + " " + m.badValue);
  }
  // The range is said in words a person can read (not 309 digits).
  CommandResult r = runCommand(cliPath() + " policy explain --nodes 0 --ranks 16 --size 1M");
  EXPECT_THAT(r.err, HasSubstr("16777216"));
  EXPECT_LT(r.err.size(), 200u) << r.err;
}

TEST(UsageErrors, AMissingInputExits2) {
  for (const Misuse& m : misuses()) expectUsageError(std::string(m.command) + " " + m.missingInput);
}

TEST(UsageErrors, NoOrAnUnknownSubcommandExits2) {
  expectUsageError("");
  expectUsageError("no-such-command");
  expectUsageError("policy");
  expectUsageError("sweep");
}

TEST(UsageErrors, EveryHelpStatesItsExitStatuses) {
  for (const char* command : {"", "detect", "env", "snapshot", "doctor", "policy", "policy lint", "policy digest",
                              "policy explain", "sweep", "sweep parse", "sweep compare", "sweep fit", "ab", "ab fit"}) {
    SCOPED_TRACE(command);
    CommandResult r = runCommand(cliPath() + " " + command + " --help");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Exit status"));
    EXPECT_THAT(r.out, HasSubstr("usage error"));
  }
}

// The programs the docs run from the build tree answer --help like the CLI.
TEST(UsageErrors, TestToolsAnswerHelp) {
  for (const char* tool : {"tests/calibration/synthetic_fleet", "tests/calibration/calibration_report",
                           "tests/calibration/ab_fit_report"}) {
    SCOPED_TRACE(tool);
    CommandResult help = runCommand(binaryPath(tool) + " --help");
    EXPECT_EQ(help.exitCode, 0) << help.err;
    EXPECT_THAT(help.out, HasSubstr("Usage:"));
    CommandResult bad = runCommand(binaryPath(tool) + " --no-such-flag");
    EXPECT_EQ(bad.exitCode, 2);
  }
  TempDir dir;
  CommandResult r =
      runCommand("cd " + dir.path() + " && " + binaryPath("tests/calibration/synthetic_fleet") + " --help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(runCommand("ls -A " + dir.path()).out, "")
      << "--help writes nothing (it once wrote 96 files into '--help')";
}

}  // namespace
}  // namespace nccl_roce::testing

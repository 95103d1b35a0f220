// One exit table for every command that reads measurements (cli/exit_status.h; docs/ab-testing.md, "Exit
// status"): a pipeline that runs any of them tells "nothing to judge" (3) from "the finding the gate is for" (1)
// and "the call is wrong" (2) the same way. Here the same bad inputs, given to each command.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using ::testing::HasSubstr;

struct Reader {
  std::string command;  // the words before the inputs
  std::string options;  // after them
};

// Each reading command, with what it needs besides the directory it reads.
const std::vector<Reader> kReaders = {
    {"ab", ""},
    {"ab", "--fail-on-slower"},
    {"ab fit", "-q"},
    {"sweep compare", "DIR"},  // DIR: the same directory again, as B
    {"sweep compare", "DIR --fail-on-slower"},
    {"sweep fit", "-q"},
    {"sweep parse", ""},
    {"policy verify --policy inference", ""},
    {"proof", ""},
};

std::string commandLine(const Reader& r, const std::string& dir) {
  std::string options = r.options;
  for (size_t at; (at = options.find("DIR")) != std::string::npos;) options.replace(at, 3, dir);
  return cliPath() + " " + r.command + " " + dir + " " + options;
}

TEST(ExitTable, AnEmptyDirectoryIsNothingToCompareForEveryReadingCommand) {
  TempDir dir;
  const std::string empty = dir.join("collected");
  runCommand("mkdir " + empty);
  for (const Reader& r : kReaders) {
    CommandResult result = runCommand(commandLine(r, empty));
    EXPECT_EQ(result.exitCode, 3) << r.command << " " << r.options << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr("nccl-roce " + r.command.substr(0, r.command.find(" --")) + ": "))
        << "one line that names the command and what is wrong";
  }
}

TEST(ExitTable, ADirectoryThatIsNotThereIsAnInputErrorForEveryReadingCommand) {
  for (const Reader& r : kReaders) {
    CommandResult result = runCommand(commandLine(r, "/nonexistent/collected"));
    EXPECT_EQ(result.exitCode, 3) << r.command << " " << r.options << ": " << result.err;
  }
}

TEST(ExitTable, AFileOfNoResultsIsNothingToCompare) {
  TempDir dir;
  const std::string logs = dir.join("logs");
  dir.writeFile("logs/rep-1.log", "# nccl-tests, killed before its first row\n");
  for (const Reader& r : kReaders) {
    if (r.command == "proof") continue;  // reads its own layout, not a directory of logs
    CommandResult result = runCommand(commandLine(r, logs));
    EXPECT_EQ(result.exitCode, 3) << r.command << " " << r.options << ": " << result.err;
  }
}

// A usage error is 2 for all of them, whatever the inputs hold.
TEST(ExitTable, AnUnknownOptionIsAUsageErrorForEveryReadingCommand) {
  TempDir dir;
  runCommand("mkdir " + dir.join("collected"));
  for (const Reader& r : kReaders) {
    CommandResult result = runCommand(commandLine(r, dir.join("collected")) + " --no-such-option");
    EXPECT_EQ(result.exitCode, 2) << r.command << " " << r.options << ": " << result.err;
  }
}

}  // namespace
}  // namespace nccl_roce::testing

// Runs a command line through /bin/sh and captures what it printed, for tests of the CLI and scripts.
#pragma once

#include <string>

namespace nccl_roce::testing {

struct CommandResult {
  int exitCode = -1;  // -1: did not exit normally
  std::string out;
  std::string err;
};

CommandResult runCommand(const std::string& commandLine);

// The built `nccl-roce` binary in this build tree.
std::string cliPath();
// A program built in this build tree: binaryPath("tests/calibration/synthetic_fleet").
std::string binaryPath(const std::string& relative);
// A file of the source tree.
std::string sourcePath(const std::string& relative);

}  // namespace nccl_roce::testing

#include "tests/support/run_command.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

CommandResult runCommand(const std::string& commandLine) {
  TempDir dir;
  std::string full = "(" + commandLine + ") >" + dir.join("out") + " 2>" + dir.join("err") + " </dev/null";
  int status = std::system(full.c_str());
  CommandResult result;
  if (status != -1 && WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  result.out = slurp(dir.join("out"));
  result.err = slurp(dir.join("err"));
  return result;
}

std::string cliPath() {
  return binaryPath("cli/nccl-roce");
}
std::string binaryPath(const std::string& relative) {
  return std::string(NCCL_ROCE_BINARY_DIR) + "/" + relative;
}

std::string sourcePath(const std::string& relative) {
  return std::string(NCCL_ROCE_SOURCE_DIR) + "/" + relative;
}

}  // namespace nccl_roce::testing

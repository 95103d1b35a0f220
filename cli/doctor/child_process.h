// A program run as a child process with a time bound, for what only another program can tell the doctor (which
// NCCL wheel the user's python3 imports). The child gets exactly the environment given, no stdin, and is killed
// with its process group when the time is up: a hung interpreter never hangs the doctor.
#pragma once

#include <string>
#include <vector>

namespace nccl_roce::doctor {

struct ChildOutput {
  bool started = false;   // false: the program could not be started (`error` says why)
  bool timedOut = false;  // killed at the deadline; `out` and `err` hold what came before
  int exitCode = -1;      // the exit status; -1 when a signal ended it
  std::string out, err;   // at most 64 KiB each
  std::string error;
};

// Runs `program` (a path) with `args` (argv[1...]) and `environment` ("NAME=value" each) for at most `timeoutMs`.
ChildOutput runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& environment, int timeoutMs);

}  // namespace nccl_roce::doctor

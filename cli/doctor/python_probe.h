// A short Python program run by the python3 on the user's PATH, for what only that interpreter knows (which
// packages it imports, from where). Shared by the two wheels the doctor looks for: PyTorch's NCCL (nccl_wheel.h)
// and nccl-roce's own (roce_wheel.h).
#pragma once

#include <string>
#include <vector>

#include "common/env.h"

namespace nccl_roce::doctor {

struct PythonAnswer {
  std::string python;     // the python3 asked; empty when PATH has none
  bool answered = false;  // it ran to the end, exit status 0: `out` holds what it printed
  std::string out;
  std::string why;  // when not answered: why, in words for the doctor's line
};

// Runs `script` with `python3 -B -c` (no bytecode written into the user's site-packages). The interpreter is the
// python3 execvp would find on env's PATH; it gets env's PATH, PYTHONPATH, HOME and the other variables that
// decide where Python finds packages (python_probe.cc lists them) plus `alsoFromEnv`, each set or unset as env
// says; everything else passes on from this process, as a shell would pass it. Killed after `timeoutMs`.
PythonAnswer askPython(const Environment& env, const char* script, const std::vector<std::string>& alsoFromEnv,
                       int timeoutMs);

}  // namespace nccl_roce::doctor

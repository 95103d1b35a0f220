#include "cli/doctor/nccl_wheel.h"

#include <unistd.h>

#include <vector>

#include "cli/doctor/python_probe.h"
#include "common/strings.h"

namespace nccl_roce::doctor {

namespace {

// Prints "dir <path>" per directory of the package, or "none <exception>" when the import fails. -B: writes no
// bytecode into the user's site-packages.
constexpr const char* kProbe = R"(import os, sys
try:
    import nvidia.nccl as m
except Exception as e:
    print("none", type(e).__name__ + ":", e)
    sys.exit(0)
f = getattr(m, "__file__", None)
for d in ([os.path.dirname(f)] if f else list(getattr(m, "__path__", []))):
    print("dir", d)
)";

// The wheel's library from python3's answer, or why there is none.
void readAnswer(const std::string& answer, const std::string& libraryName, NcclWheel& wheel) {
  std::vector<std::string> dirs;
  for (std::string_view line : split(answer, '\n')) {
    if (startsWith(line, "dir ")) dirs.emplace_back(line.substr(4));
    if (startsWith(line, "none ModuleNotFoundError:")) {
      wheel.why = wheel.python + " imports no nvidia.nccl";
      return;
    }
    if (startsWith(line, "none ")) {  // the package is there but broken: say what python3 said
      wheel.why = wheel.python + " fails to import nvidia.nccl (" + std::string(trim(line.substr(5))) + ")";
      return;
    }
  }
  for (const std::string& dir : dirs) {
    std::string library = dir + "/lib/" + libraryName;
    if (::access(library.c_str(), R_OK) == 0) {
      wheel.library = library;
      return;
    }
  }
  wheel.why = dirs.empty() ? wheel.python + "'s nvidia.nccl has no directory"
                           : wheel.python + "'s nvidia.nccl (" + dirs.front() + ") holds no lib/" + libraryName;
}

}  // namespace

NcclWheel findNcclWheel(const Environment& env, const std::string& libraryName, int timeoutMs) {
  NcclWheel wheel;
  PythonAnswer answer = askPython(env, kProbe, {}, timeoutMs);
  wheel.python = answer.python;
  if (!answer.answered) {
    wheel.why = answer.why;
  } else {
    readAnswer(answer.out, libraryName, wheel);
  }
  return wheel;
}

}  // namespace nccl_roce::doctor

#include "cli/doctor/nccl_wheel.h"

#include <unistd.h>

#include <cstring>
#include <vector>

#include "cli/doctor/child_process.h"
#include "common/log.h"
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

// What decides which python3 runs and where it finds packages: taken from the doctor's Environment (the user's,
// or a test's), set or unset as it says. Everything else passes on from this process, as a shell would pass it
// (a pyenv or conda shim needs its own variables).
constexpr const char* kPythonVariables[] = {
    "PATH",           "PYTHONPATH",       "PYTHONHOME", "PYTHONUSERBASE",  "PYTHONNOUSERSITE",
    "PYTHONSAFEPATH", "PYTHONPLATLIBDIR", "HOME",       "LD_LIBRARY_PATH", "VIRTUAL_ENV"};

// python3 as execvp would find it on env's PATH (glibc's default when PATH is unset).
std::string findPython(const Environment& env) {
  std::string path = env.get("PATH").value_or("/bin:/usr/bin");
  for (std::string_view dir : split(path, ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool isPythonVariable(std::string_view entry) {
  for (const char* name : kPythonVariables) {
    if (startsWith(entry, name) && entry.size() > std::strlen(name) && entry[std::strlen(name)] == '=') return true;
  }
  return false;
}

std::vector<std::string> childEnvironment(const Environment& env) {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!isPythonVariable(*entry)) out.emplace_back(*entry);
  }
  for (const char* name : kPythonVariables) {
    if (auto value = env.get(name)) out.push_back(std::string(name) + "=" + *value);
  }
  return out;
}

std::string lastLine(const std::string& text) {
  std::string_view t = trim(text);
  size_t newline = t.rfind('\n');
  return std::string(newline == std::string_view::npos ? t : t.substr(newline + 1));
}

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
  wheel.python = findPython(env);
  if (wheel.python.empty()) {
    wheel.why = "no python3 on PATH";
    return wheel;
  }
  ChildOutput child = runChild(wheel.python, {"-B", "-c", kProbe}, childEnvironment(env), timeoutMs);
  if (!child.started) {
    wheel.why = wheel.python + " did not start: " + child.error;
  } else if (child.timedOut) {
    wheel.why = format("%s did not answer within %g s", wheel.python.c_str(), timeoutMs / 1000.0);
  } else if (child.exitCode != 0) {
    std::string said = lastLine(child.err);
    wheel.why = wheel.python + (child.exitCode < 0 ? " was killed by a signal" : format(" exited %d", child.exitCode)) +
                (said.empty() ? "" : ": " + said);
  } else {
    readAnswer(child.out, libraryName, wheel);
  }
  return wheel;
}

}  // namespace nccl_roce::doctor

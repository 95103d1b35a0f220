#include "cli/doctor/python_probe.h"

#include <unistd.h>

#include <cstring>

#include "cli/doctor/child_process.h"
#include "common/log.h"
#include "common/strings.h"

namespace nccl_roce::doctor {

namespace {

// What decides which python3 runs and where it finds packages: taken from the doctor's Environment (the user's,
// or a test's). A pyenv or conda shim needs its own variables, which pass on from this process.
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

std::vector<std::string> childEnvironment(const Environment& env, const std::vector<std::string>& alsoFromEnv) {
  std::vector<std::string> names(std::begin(kPythonVariables), std::end(kPythonVariables));
  names.insert(names.end(), alsoFromEnv.begin(), alsoFromEnv.end());
  auto fromEnv = [&names](std::string_view entry) {
    for (const std::string& name : names) {
      if (startsWith(entry, name) && entry.size() > name.size() && entry[name.size()] == '=') return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!fromEnv(*entry)) out.emplace_back(*entry);
  }
  for (const std::string& name : names) {
    if (auto value = env.get(name)) out.push_back(name + "=" + *value);
  }
  return out;
}

std::string lastLine(const std::string& text) {
  std::string_view t = trim(text);
  size_t newline = t.rfind('\n');
  return std::string(newline == std::string_view::npos ? t : t.substr(newline + 1));
}

}  // namespace

PythonAnswer askPython(const Environment& env, const char* script, const std::vector<std::string>& alsoFromEnv,
                       int timeoutMs) {
  PythonAnswer answer;
  answer.python = findPython(env);
  if (answer.python.empty()) {
    answer.why = "no python3 on PATH";
    return answer;
  }
  ChildOutput child = runChild(answer.python, {"-B", "-c", script}, childEnvironment(env, alsoFromEnv), timeoutMs);
  if (!child.started) {
    answer.why = answer.python + " did not start: " + child.error;
  } else if (child.timedOut) {
    answer.why = format("%s did not answer within %g s", answer.python.c_str(), timeoutMs / 1000.0);
  } else if (child.exitCode != 0) {
    std::string said = lastLine(child.err);
    answer.why = answer.python +
                 (child.exitCode < 0 ? " was killed by a signal" : format(" exited %d", child.exitCode)) +
                 (said.empty() ? "" : ": " + said);
  } else {
    answer.answered = true;
    answer.out = child.out;
  }
  return answer;
}

}  // namespace nccl_roce::doctor

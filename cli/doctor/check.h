// One `nccl-roce doctor` check: what was looked at, how it went, and the one-line remedy when it did not.
#pragma once

#include <string>
#include <vector>

namespace nccl_roce::doctor {

enum class Outcome { kPass, kWarn, kFail, kSkip };
const char* outcomeName(Outcome outcome);  // "pass", "warn", "fail", "skip"

struct CheckResult {
  std::string id;     // stable, for automation: "memlock", "gid-qualification", ...
  std::string title;  // "Locked-memory limit"
  Outcome outcome = Outcome::kPass;
  std::string detail;  // what was found, in plain words
  std::string remedy;  // one line, empty on pass

  static CheckResult pass(std::string id, std::string title, std::string detail);
  static CheckResult warn(std::string id, std::string title, std::string detail, std::string remedy);
  static CheckResult fail(std::string id, std::string title, std::string detail, std::string remedy);
  static CheckResult skip(std::string id, std::string title, std::string why);
};

// The worst outcome decides the exit status: fail -> 1, otherwise 0.
bool anyFailed(const std::vector<CheckResult>& results);

}  // namespace nccl_roce::doctor

#include "cli/doctor/check.h"

#include <algorithm>

namespace nccl_roce::doctor {

const char* outcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kWarn:
      return "warn";
    case Outcome::kFail:
      return "fail";
    case Outcome::kSkip:
      return "skip";
  }
  return "skip";
}

CheckResult CheckResult::pass(std::string id, std::string title, std::string detail) {
  return {std::move(id), std::move(title), Outcome::kPass, std::move(detail), ""};
}
CheckResult CheckResult::warn(std::string id, std::string title, std::string detail, std::string remedy) {
  return {std::move(id), std::move(title), Outcome::kWarn, std::move(detail), std::move(remedy)};
}
CheckResult CheckResult::fail(std::string id, std::string title, std::string detail, std::string remedy) {
  return {std::move(id), std::move(title), Outcome::kFail, std::move(detail), std::move(remedy)};
}
CheckResult CheckResult::skip(std::string id, std::string title, std::string why) {
  return {std::move(id), std::move(title), Outcome::kSkip, std::move(why), ""};
}

bool anyFailed(const std::vector<CheckResult>& results) {
  return std::any_of(results.begin(), results.end(), [](const CheckResult& r) { return r.outcome == Outcome::kFail; });
}

}  // namespace nccl_roce::doctor

#include <nlohmann/json.hpp>

#include "cli/doctor/checks.h"
#include "cli/doctor/report.h"
#include "common/log.h"

namespace nccl_roce::doctor {

std::vector<CheckResult> runAllChecks(const DoctorInputs& in) {
  return {checkPortState(in),    checkGidQualification(in), checkRoceV2(in),     checkMtu(in),
          checkDeviceAccess(in), checkMemlock(in),          checkPeerMemory(in), checkAffinity(in),
          checkUserSettings(in), checkPolicyPin(in),        checkNcclLibrary(in)};
}

std::string reportText(const std::vector<CheckResult>& results) {
  std::string out;
  for (const auto& r : results) {
    out += format("%-5s %-20s %s\n", outcomeName(r.outcome), r.id.c_str(), r.detail.c_str());
    if (!r.remedy.empty()) out += "      -> " + r.remedy + "\n";
  }
  return out;
}

std::string reportJson(const std::vector<CheckResult>& results) {
  nlohmann::ordered_json doc;
  doc["checks"] = nlohmann::ordered_json::array();
  nlohmann::ordered_json summary = {{"pass", 0}, {"warn", 0}, {"fail", 0}, {"skip", 0}};
  for (const auto& r : results) {
    doc["checks"].push_back(
        {{"id", r.id},
         {"title", r.title},
         {"status", outcomeName(r.outcome)},
         {"detail", r.detail},
         {"remedy", r.remedy.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.remedy)}});
    summary[outcomeName(r.outcome)] = summary[outcomeName(r.outcome)].get<int>() + 1;
  }
  doc["summary"] = summary;
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace nccl_roce::doctor

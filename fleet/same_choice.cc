#include "fleet/same_choice.h"

#include <map>

#include "telemetry/choice.h"

namespace nccl_roce::fleet {

namespace {

using telemetry::Choice;

// Per cell, the choices `arm` decided over the fleet.
std::map<uint64_t, std::set<Choice>> choicesOf(const Fleet& fleet, const std::string& arm) {
  std::map<uint64_t, std::set<Choice>> out;
  for (const FleetCommunicator& c : fleet.communicators) {
    for (const auto& [cell, decisions] : c.decisions) {
      for (const auto& [d, count] : decisions) {
        const std::string& decidedBy = d.arm.empty() ? c.arm : d.arm;
        if (count > 0 && decidedBy == arm) out[cell].insert(d.choice);
      }
    }
  }
  return out;
}

}  // namespace

std::set<uint64_t> cellsDecidedAlike(const Fleet& fleet, const std::string& control, const std::string& arm) {
  std::map<uint64_t, std::set<Choice>> a = choicesOf(fleet, control), b = choicesOf(fleet, arm);
  std::set<uint64_t> alike;
  for (const auto& [cell, choices] : a) {
    auto other = b.find(cell);
    if (other != b.end() && other->second == choices) alike.insert(cell);
  }
  return alike;
}

}  // namespace nccl_roce::fleet

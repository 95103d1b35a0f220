#include "fleet/fleet_files.h"

#include <nlohmann/json.hpp>

#include "fleet/experiment_choice.h"
#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"

namespace nccl_roce::fleet {

namespace {

// Whether `text` is a JSON document that stops before its end: the parser ran out of input, not into a wrong
// character. The plugin renames whole files into place, so such a file is a copy that stopped part-way.
bool endsEarly(const std::string& text) {
  try {
    nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte > text.size();
  } catch (const nlohmann::json::exception&) {
    return false;  // whole but unreadable, such as a number past a double's range: not a cut copy
  }
  return false;
}

}  // namespace

InputKind inputKindOf(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return InputKind::kEmpty;
  if (text[first] != '{') return InputKind::kForeign;
  // Our writer puts the schema first; any file that names it is ours and is held to its checks.
  if (text.find("\"nccl-roce.stats/") != std::string::npos) return InputKind::kStatistics;
  if (text.find("\"inspector_output_format_version\"") != std::string::npos) return InputKind::kInspector;
  return InputKind::kForeign;
}

Status FleetReader::add(const std::string& file, const std::string& text) {
  switch (inputKindOf(text)) {
    case InputKind::kEmpty:
      skipped_.push_back({file, "empty", /*error=*/false});
      return Status::ok();
    case InputKind::kForeign:
      skipped_.push_back({file, "neither a statistics file nor an Inspector dump"});
      return Status::ok();
    case InputKind::kStatistics: {
      StatusOr<std::vector<CommunicatorRecord>> records = parseTelemetryFile(text, file);
      if (!records.isOk() && endsEarly(text)) {
        return Status(records.status().code(),
                      file + ": cut short after " + std::to_string(text.size()) +
                          " bytes (the plugin renames whole files into place, so a copy that stopped part-way)");
      }
      if (!records.isOk()) return records.status();
      statistics_.insert(statistics_.end(), records->begin(), records->end());
      return Status::ok();
    }
    case InputKind::kInspector:
      break;
  }
  StatusOr<InspectorDump> dump = parseInspectorDump(text, file);
  if (!dump.isOk()) return dump.status();
  if (!dump->truncatedLast.empty()) {
    skipped_.push_back(
        {file, "its last record, from " + dump->truncatedLast + ", is cut short (a killed process?)", /*error=*/false});
  }
  pointToPoint_ += dump->pointToPoint;
  otherCollectives_ += dump->otherCollectives;
  inspector_.insert(inspector_.end(), dump->records.begin(), dump->records.end());
  return Status::ok();
}

void FleetReader::skipUnreadable(const std::string& file, const std::string& why) {
  skipped_.push_back({file, why, /*error=*/true});
}

void FleetReader::skip(const std::string& file, const std::string& why, bool error) {
  skipped_.push_back({file, why, error});
}

StatusOr<Fleet> FleetReader::assemble(const std::string& experiment) const {
  if (experiment.empty()) return withInputs(assembleFleet(statistics_, inspector_), "");
  StatusOr<ExperimentRecords> records = recordsOfExperiment(statistics_, inspector_, experiment);
  if (!records.isOk()) return records.status();
  return withInputs(assembleFleet(records->statistics, records->inspector), records->note);
}

StatusOr<Fleet> FleetReader::withInputs(StatusOr<Fleet> fleet, const std::string& chosen) const {
  if (!fleet.isOk()) return fleet;
  if (!chosen.empty()) fleet->notes.insert(fleet->notes.begin(), chosen);
  fleet->skipped = skipped_;
  if (pointToPoint_ + otherCollectives_ > 0) {
    fleet->notes.push_back("Inspector records not compared: " + std::to_string(pointToPoint_) + " point-to-point, " +
                           std::to_string(otherCollectives_) +
                           " of collectives the tuner never decides (AllGatherV, ...)");
  }
  return fleet;
}

}  // namespace nccl_roce::fleet

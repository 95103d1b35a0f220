#include "fleet/fleet_files.h"

#include "fleet/inspector_reader.h"
#include "fleet/telemetry_reader.h"

namespace nccl_roce::fleet {

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
      skipped_.push_back({file, "empty"});
      return Status::ok();
    case InputKind::kForeign:
      skipped_.push_back({file, "neither a statistics file nor an Inspector dump"});
      return Status::ok();
    case InputKind::kStatistics: {
      StatusOr<std::vector<CommunicatorRecord>> records = parseTelemetryFile(text, file);
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
    skipped_.push_back({file, "its last record, from " + dump->truncatedLast + ", is cut short (a killed process?)"});
  }
  pointToPoint_ += dump->pointToPoint;
  otherCollectives_ += dump->otherCollectives;
  inspector_.insert(inspector_.end(), dump->records.begin(), dump->records.end());
  return Status::ok();
}

StatusOr<Fleet> FleetReader::assemble() const {
  StatusOr<Fleet> fleet = assembleFleet(statistics_, inspector_);
  if (!fleet.isOk()) return fleet;
  fleet->skipped = skipped_;
  if (pointToPoint_ + otherCollectives_ > 0) {
    fleet->notes.push_back("Inspector records not compared: " + std::to_string(pointToPoint_) + " point-to-point, " +
                           std::to_string(otherCollectives_) +
                           " of collectives the tuner never decides (AllGatherV, ...)");
  }
  return fleet;
}

}  // namespace nccl_roce::fleet

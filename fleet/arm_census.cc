#include "fleet/arm_census.h"

namespace nccl_roce::fleet {

ArmCensus censusOfArms(const Fleet& fleet, bool needNodeCount) {
  ArmCensus census;
  int withoutArm = 0, withoutNodes = 0, live = 0;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.timings.empty()) continue;
    if (c.live) ++live;
    if (c.arm.empty()) {
      ++withoutArm;
    } else if (needNodeCount && c.nNodes <= 0) {
      ++withoutNodes;
    } else {
      ++census.communicatorsPerArm[c.arm];
    }
  }
  if (fleet.withoutArm > 0) {
    census.notes.push_back(std::to_string(fleet.withoutArm) +
                           " communicator(s) in the Inspector dumps have no statistics file giving their arm: left out");
  }
  if (withoutArm > 0) {
    census.notes.push_back(std::to_string(withoutArm) + " timed communicator(s) ran no experiment arm: left out");
  }
  if (live > 0) {
    census.notes.push_back(std::to_string(live) + " timed communicator(s) were still live: counted as of their "
                                                  "latest checkpoint");
  }
  if (withoutNodes > 0) {
    census.notes.push_back(std::to_string(withoutNodes) +
                           " timed communicator(s) do not say their node count (no tuner entry): left out");
  }
  return census;
}

Status checkArms(const ArmCensus& census, const std::string& control, const std::string& purpose) {
  std::string seen;
  for (const auto& [arm, n] : census.communicatorsPerArm) seen += (seen.empty() ? "" : ", ") + arm;
  if (census.communicatorsPerArm.count(control) == 0) {
    return Status(StatusCode::kFailedPrecondition, "no timed communicator of the control arm '" + control +
                                                       "' (arms with timings: " + (seen.empty() ? "none" : seen) +
                                                       "); name it with --control");
  }
  if (census.communicatorsPerArm.size() < 2) {
    return Status(StatusCode::kFailedPrecondition,
                  "only the control arm '" + control + "' has timed communicators: " + purpose);
  }
  return Status::ok();
}

std::optional<double> communicatorValueUs(const CellTiming& timing, uint64_t minCollectives) {
  if (timing.collectives < minCollectives) return std::nullopt;
  std::optional<double> mean = timing.durations.geometricMeanNs();
  if (!mean || !(*mean > 0)) return std::nullopt;
  return *mean / 1000.0;
}

}  // namespace nccl_roce::fleet

#include "fleet/arm_census.h"

namespace nccl_roce::fleet {

ArmCensus censusOfArms(const Fleet& fleet, bool needNodeCount) {
  ArmCensus census;
  census.experiment = fleet.experiment;
  int withoutArm = 0, withoutNodes = 0, live = 0;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.arm.empty()) ++census.withoutArm;
    if (c.timings.empty()) {
      census.untimed += !c.arm.empty();
      continue;
    }
    if (c.live) ++live;
    if (c.arm.empty()) {
      ++withoutArm;
    } else if (needNodeCount && c.nNodes <= 0) {
      ++withoutNodes;
    } else {
      ++census.communicatorsPerArm[c.arm];
    }
  }
  census.inspectorOnly = fleet.withoutArm;
  if (fleet.withoutArm > 0) {
    census.notes.push_back(
        std::to_string(fleet.withoutArm) +
        " communicator(s) in the Inspector dumps have no statistics file giving their arm: left out");
  }
  if (withoutArm > 0) {
    census.notes.push_back(std::to_string(withoutArm) + " timed communicator(s) ran no experiment arm: left out");
  }
  if (live > 0) {
    census.notes.push_back(std::to_string(live) +
                           " timed communicator(s) were still live: counted as of their "
                           "latest checkpoint");
  }
  if (withoutNodes > 0) {
    census.notes.push_back(std::to_string(withoutNodes) +
                           " timed communicator(s) do not say their node count (no tuner entry): left out");
  }
  return census;
}

namespace {

// Why no communicator of any arm is timed, with the remedy; "" when some are (and another check says more).
std::string whyNothingTimed(const ArmCensus& census) {
  if (!census.communicatorsPerArm.empty()) return "";
  if (census.untimed > 0) {
    return "no timings: none of the " + std::to_string(census.untimed) +
           " communicator(s) of an experiment arm was timed, so the statistics files hold the tuner's decisions "
           "only and the profiler was not loaded (or NCCL_ROCE_PROFILE=0). Load it in the pods: "
           "NCCL_PROFILER_PLUGIN=roce beside NCCL_ROCE_STATS (NCCL 2.26 or later; docs/ab-testing.md, \"The "
           "workflow with vLLM\"), or give NVIDIA Inspector's dumps beside the statistics files";
  }
  if (census.inspectorOnly > 0 && census.withoutArm == 0) {
    return "the " + std::to_string(census.inspectorOnly) +
           " communicator(s) the Inspector dumps time are in no statistics file, which gives each its arm: collect "
           "the pods' NCCL_ROCE_STATS files too";
  }
  if (census.withoutArm > 0 && !census.experiment.empty()) {
    // Communicators of a named experiment with no arm and no windows: a switchback read without them (the
    // textfiles of plugins before its series carried each arm and window; statistics files always hold them).
    return "the communicators of experiment '" + census.experiment +
           "' give no arm and no switchback windows: a switchback runs every arm in each communicator and is judged "
           "by its windows, which its statistics files hold (and, from this version of the plugin on, its metrics "
           "textfile): run `nccl-roce ab` on the pods' statistics files (docs/ab-testing.md, \"Switchback "
           "experiments\")";
  }
  if (census.withoutArm > 0) {
    return "no communicator ran an experiment arm: the pods' NCCL_ROCE_POLICY names a policy, not an experiment "
           "(docs/ab-testing.md, \"The workflow with vLLM\")";
  }
  return "";
}

}  // namespace

Status checkArms(const ArmCensus& census, const std::string& control, const std::string& purpose) {
  if (std::string why = whyNothingTimed(census); !why.empty()) {
    return Status(StatusCode::kFailedPrecondition, why + ": " + purpose);
  }
  std::string seen;
  for (const auto& [arm, n] : census.communicatorsPerArm) seen += (seen.empty() ? "" : ", ") + arm;
  if (census.communicatorsPerArm.count(control) == 0) {
    return Status(StatusCode::kFailedPrecondition, "no timed communicator of the control arm '" + control +
                                                       "' (arms with timings: " + (seen.empty() ? "none" : seen) +
                                                       "); name it with --control");
  }
  if (census.communicatorsPerArm.size() < 2) {
    return Status(StatusCode::kFailedPrecondition,
                  "only the control arm '" + control + "' has timed communicators (are the other arms' pods' " +
                      "files among the inputs, and have they run long enough to finish a communicator or write a " +
                      "checkpoint?): " + purpose);
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

// `ab fit`'s challenges from a switchback experiment (docs/ab-testing.md, "Switchback experiments"): per node count,
// collective and size bucket, every arm other than the reference (the experiment's first) challenges it with the
// paired windows of every communicator there pooled, as `nccl-roce ab` compares them (verdicts/paired_ratio.h).
// A window is the unit: one pod's communicators can carry a fit. What each arm ran in a cell is read from the
// decision lines its turns wrote. Winners are then chosen as for any fit, under the same false-discovery control.
#pragma once

#include <vector>

#include "common/status.h"
#include "fleet/ab_fit.h"
#include "fleet/fleet.h"

namespace nccl_roce::fleet {

// The cells with at least one challenge (options.settings.minUnits windows of the arm and reference), into
// fit->cells; fit->control becomes the reference arm, fit->communicatorsPerArm its communicators (every arm ran in
// each). kInvalidArgument when options.control names another arm; kFailedPrecondition, saying what to collect,
// when no cell has enough windows.
Status fitSwitchbackCells(const Fleet& fleet, const AbFitOptions& options, AbFit* fit);

// The decisions of `arm` per (node count, cell): whose rules decided what.
std::map<std::pair<int, uint64_t>, DecisionCounts> switchbackDecisions(const Fleet& fleet, const std::string& arm);

}  // namespace nccl_roce::fleet

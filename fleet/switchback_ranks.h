// The ranks of a switchback communicator (docs/ab-testing.md, "Switchback experiments") merged into one: every rank
// timed the same collectives in the same windows, so their counts add up but their paired windows are averaged
// (adding them would count each window once per rank and make every interval too narrow).
#pragma once

#include <string>

#include "fleet/fleet.h"

namespace nccl_roce::fleet {

// One rank into its communicator. False, with why, when the rank ran other arms, or made another number of tuner
// calls for some arm than the ranks before it: ranks whose turns disagree decide differently, which can hang a job
// (NVIDIA/nccl#1136), and their timings compare nothing.
bool mergeSwitchbackRank(FleetCommunicator& c, const CommunicatorRecord& r, std::string* why);

// Once every rank is merged: the averages of their paired windows.
void finishSwitchbackRanks(FleetCommunicator& c);

}  // namespace nccl_roce::fleet

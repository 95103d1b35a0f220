// What `nccl-roce ab` and `ab fit` both need before comparing arms: which arms have timed communicators, why
// others cannot count, and each communicator's one value per cell (the communicator is the unit).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"

namespace nccl_roce::fleet {

struct ArmCensus {
  std::map<std::string, int> communicatorsPerArm;  // timed communicators that count, per arm
  std::vector<std::string> notes;                  // those left out, and why
  // Why nothing may count, for the refusal to say: communicators of an arm with no timings (their pods' profiler
  // was not loaded), those of no arm, and timed ones in Inspector dumps that no statistics file names.
  int untimed = 0, withoutArm = 0, inspectorOnly = 0;
  std::string experiment;  // the fleet's, when its files name one
};

// Timed communicators per arm. Those without an arm are left out with a note, and with `needNodeCount` (ab fit
// groups by node count) so are those whose records give none; a note says how many were still live.
ArmCensus censusOfArms(const Fleet& fleet, bool needNodeCount);

// kFailedPrecondition when no timed communicator of `control`, or of any other arm, counts; `purpose` ends the
// message ("nothing to compare"). When nothing is timed at all the message says why that happens (no profiler
// loaded, no experiment) rather than asking for another --control.
Status checkArms(const ArmCensus& census, const std::string& control, const std::string& purpose);

// A communicator's value in a cell: the geometric mean of its collectives there in microseconds (from its merged
// count and bin sum, within 1%), when it ran at least `minCollectives` of them (counted per communicator, not per
// rank).
std::optional<double> communicatorValueUs(const CellTiming& timing, uint64_t minCollectives);

}  // namespace nccl_roce::fleet

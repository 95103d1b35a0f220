// Where two arms decided the same: in a (collective, size bucket) cell where every decision of both arms chose the
// same algorithm, protocol, channels and chunk size, comparing them is an A/A (docs/ab-testing.md says what that
// tells you), and a report names it so.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "fleet/fleet.h"

namespace nccl_roce::fleet {

// The cells where `arm` and `control` decided exactly the same choices (a switchback's decisions by their arm, a
// per-communicator experiment's by their communicator's arm). Cells without decisions of both are not among them.
std::set<uint64_t> cellsDecidedAlike(const Fleet& fleet, const std::string& control, const std::string& arm);

}  // namespace nccl_roce::fleet

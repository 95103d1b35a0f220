// The words for a port decision, rendered at the edge (`detect` text and JSON, the doctor, NCCL's INFO log,
// warnings) from the typed reasons selection records: "port is DOWN (state 1)", "25 Gb/s is below half of the
// fastest candidate (400 Gb/s): not a rail", "active RoCE port; RoCE v2 GID 3 (10.0.5.11 on ens5np0), 400 Gb/s".
#pragma once

#include <string>

#include "gid/selection.h"

namespace nccl_roce::gid {

// Why the port was selected, or why not, in plain words.
std::string reasonText(const PortDecision& decision);
std::string exclusionText(const ExclusionReason& reason);
// "link-local", "RoCE v1", "with addresses not configured in this network namespace", ...
const char* gidRejectionText(GidRejection rejection);

}  // namespace nccl_roce::gid

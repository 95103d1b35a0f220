// A fleet's communicators, assembled from every process's records: the ranks of one communicator (same id, in
// files from many pods) merged into one, with its arm. The communicator is what an experiment randomises, so it
// is the unit every comparison counts.
//
// Ranks of one communicator that report different experiments, arms or policy hashes decided differently, which
// can hang a job (NVIDIA/nccl#1136): such a communicator is named in `errors` and left out; so is one whose ranks
// report different node counts (a hand-edited file: NCCL gives every rank the same). Files from different
// experiments cannot be compared at all: that is an error of the whole input.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_records.h"

namespace nccl_roce::fleet {

struct FleetCommunicator {
  uint64_t commId = 0;
  std::string arm, policy, policyHash;
  std::set<std::string> files;
  int records = 0;                                  // ranks (processes) merged
  int nNodes = 0;                                   // 0: no record said
  std::map<uint64_t, CellTimings> timings;          // per cell, over every rank
  std::map<uint64_t, DecisionCounts> decisions;     // per cell, calls over every rank
  bool live = false;  // some rank's latest state is a checkpoint: the communicator was still running
};

struct Fleet {
  std::string experiment;  // "" when no file names one
  std::vector<FleetCommunicator> communicators;
  std::vector<std::string> errors;  // communicators left out, and why
  std::vector<std::string> notes;   // what the reader could not give (e.g. cells a textfile left out)
  int withoutArm = 0;               // timed communicators no statistics file gave an arm (left out)
};

// `statistics`: records from our files (arms, and timings unless Inspector gives them); `inspector`: records from
// Inspector dumps, which, when given, are the timing source (joined by communicator id). Of the records that
// name the same entry (a checkpoint beside the final state, an entry a kill left in a part file and in the main
// file, one file given twice) only the latest counts.
StatusOr<Fleet> assembleFleet(const std::vector<CommunicatorRecord>& statistics,
                              const std::vector<CommunicatorRecord>& inspector);

}  // namespace nccl_roce::fleet

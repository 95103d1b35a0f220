// The units of a switchback's collectives replayed from CUDA graphs (docs/statistics.md, "Collectives replayed from
// CUDA graphs"): what the schedule drew at capture. Turns come in rounds whose order was drawn per round, so in
// one communicator and size bucket a round's turns compare arms over captured collectives (graph positions) that
// the draw alone put on one side or the other. A unit is (communicator, round, size): the mean over the arm's
// captured collectives of that size (in one bucket, one graph: one batch size) of each one's mean log duration
// over its replays, minus the reference's; both sides ran in the same replays of the same graph. Units of
// different rounds, and of different communicators (each captured with its own draw), are independent; a
// communicator's ranks captured alike and were averaged first (fleet/switchback_ranks.h).
//
// A round in which only one of the two arms captured collectives of a size compares nothing there: its
// collectives ran one arm at every replay and the other arm never ran that graph's positions (with a long block,
// whole graphs, that is whole batch sizes, on one arm). They are counted as unpaired, never compared.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fleet/fleet.h"

namespace nccl_roce::fleet {

struct CaptureUnits {
  std::vector<double> differences;  // one per unit, arm minus reference, in log-histogram bins
  // Replays timed in the units' turns, over the ranks, with their bins' sum: each side's geometric mean.
  uint64_t countReference = 0, binSumReference = 0, countArm = 0, binSumArm = 0;
  // Replays timed in rounds where the other side captured nothing of this bucket: never compared.
  uint64_t unpairedReference = 0, unpairedArm = 0;
  std::set<uint64_t> sizes;  // the captured collectives' sizes the units pair: in a bucket, its graphs (batch sizes)
};

// Per cell of `collective`, the units of `arm` against `reference`, pooled over every switchback communicator whose
// replays were told apart.
std::map<uint64_t, CaptureUnits> captureUnits(const Fleet& fleet, const std::string& reference, const std::string& arm,
                                              int collective);

}  // namespace nccl_roce::fleet

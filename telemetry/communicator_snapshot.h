// Everything known of one communicator at one moment, typed: who it is (ids, shape, rank), what decided for it
// (the tuner's policy identity and decision counts, its chunk-size serving) and how long its collectives took
// (the profiler's timings). The tuner and the profiler each fill their part in the process; the statistics file
// (stats_file.h) and the metrics textfile (open_metrics.h) write it, and the fleet readers read it back. JSON
// and text exist only at those edges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/decisions.h"
#include "telemetry/timings.h"

namespace nccl_roce::telemetry {

// The tuner's answer to "what decides for this communicator" (docs/rollout.md for the identities).
struct PolicyIdentity {
  std::string experiment;       // "" unless an experiment assigned the policy
  std::string experimentHash;   // the experiment's identity (= digest) when there is one
  std::string policy = "nccl";  // the arm's policy, or the policy itself
  std::string policySource;     // "builtin:inference" or its path; "" for the passthrough
  std::string policyHash;       // the deciding policy's identity; "" for the passthrough
  std::string digest;           // of what NCCL_ROCE_POLICY(_INLINE) loaded, what a pin names; "" none
  std::string arm;              // "" unless an experiment chose it
  std::string design;           // "switchback" where every arm decides in turns (no one arm); "" otherwise

  bool operator==(const PolicyIdentity& o) const;
};

// How often the tuner's getChunkSize served a chunk size, refused one NCCL could not use, or could not tell which
// of a group's decisions applied.
struct ChunkSizeCounts {
  uint64_t served = 0, refused = 0, ambiguous = 0;
  bool operator==(const ChunkSizeCounts& o) const {
    return served == o.served && refused == o.refused && ambiguous == o.ambiguous;
  }
};

struct CommunicatorSnapshot {
  uint64_t commId = 0;
  int nRanks = 0, nNodes = 0;              // 0: not known (a profiler of NCCL 2.23-2.26 without a tuner beside it)
  std::optional<int> rank;                 // the profiler's (NCCL 2.27+)
  std::optional<PolicyIdentity> identity;  // the tuner's part
  std::optional<std::vector<DecisionCount>> decisions;  // the tuner's part, sorted
  std::optional<ChunkSizeCounts> chunkSizes;            // where the tuner serves chunk sizes
  std::optional<Timings> timings;                       // the profiler's part

  // Calls counted plus collectives timed: what only grows while the communicator lives, so of two states of one
  // entry the one with more has seen more.
  uint64_t cumulativeCount() const;
};

// Labels each timed key with the rule that decided most calls of its collective, size bucket, algorithm and
// protocol (channels aside: NCCL may run fewer than a rule asked for), and with the chunk size that rule set there
// (the profiler cannot see chunk sizes). Keys no rule decided keep no rule and NCCL's own chunk size. Keys that
// come to share a key after labelling are merged.
void attributeTimings(Timings& timings, const std::vector<DecisionCount>& decisions);

}  // namespace nccl_roce::telemetry

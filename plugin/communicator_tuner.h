// What the tuner plugin keeps for one communicator, between NCCL's init and finalize (plugin/tuner_plugin.cc uses
// it per call, plugin/tuner_setup.cc builds it and reports it).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "plugin/nccl_logger.h"
#include "plugin/telemetry_file.h"
#include "policy/nccl_chunk_limits.h"
#include "policy/policy_loader.h"
#include "telemetry/switchback.h"
#include "tuner/compiled_policy.h"
#include "tuner/decision_counts.h"
#include "tuner/experiment.h"
#include "tuner/group_chunk_decisions.h"
#include "tuner/switchback_turns.h"

namespace nccl_roce::plugin {

class ProcessContext;

// How often getChunkSize served a chunk size, refused one NCCL could not use, or could not tell which applied, as
// it counts them (telemetry::ChunkSizeCounts is their snapshot).
// Shared with the statistics checkpoint, which may read them while the communicator finalizes.
struct ChunkSizeCounters {
  std::atomic<uint64_t> served{0}, refused{0}, ambiguous{0};
};

// What getChunkSize serves a communicator, and how often it did (docs/tuner.md, "Chunk size").
struct ChunkSizeServing {
  bool serves = false;                         // NCCL asks, and the policy (or NCCL_ROCE_CHUNK_SIZE) sets some
  std::optional<telemetry::ChunkSize> forced;  // NCCL_ROCE_CHUNK_SIZE: every call, whatever the rules say
  bool fromRules = false;  // the communicator's policy sets some (and nothing forces one): getCollInfo keeps them
  policy::ChunkCeilings ceilings;             // of the buffers this process's NCCL reads its variables as
  tuner::GroupChunkDecisions group;           // getCollInfo's decisions for getChunkSize (NCCL serialises them)
  std::shared_ptr<ChunkSizeCounters> counts;  // set when it serves
  bool refusalLogged = false;
};

struct CommunicatorTuner {
  uint64_t commId = 0;
  size_t nRanks = 0;
  size_t nNodes = 0;
  std::shared_ptr<const policy::ActivePolicy> active;  // what NCCL_ROCE_POLICY loaded (the registry keeps it too)
  tuner::PolicyAssignment assignment;  // per-communicator design: the policy (or arm) that decides every call
  std::string experiment;              // empty unless an experiment assigned the policy
  std::string digest;                  // of what NCCL_ROCE_POLICY(_INLINE) loaded: what a pin names
  std::shared_ptr<const tuner::CompiledPolicy> compiled;  // null: NCCL decides; shared by comms of one shape
  std::unique_ptr<tuner::SwitchbackTurns> switchback;     // a switchback experiment: the arm of each call
  bool algoOrProtoRestricted = false;                     // NCCL_ALGO / NCCL_PROTO set by the user
  // How the NCCL calling picks where it chooses: what it runs after a call the rules leave to it.
  tuner::SelectionRule selection = tuner::SelectionRule::kLastPlainMinimum;
  ChunkSizeServing chunks;
  // With NCCL_ROCE_STATS set: every call counted, reported through the communicator's telemetry entry (the
  // statistics file at each checkpoint and at finalize, the profiler's rule labels, the metrics textfile).
  std::shared_ptr<tuner::DecisionCounts> decisions;  // shared with the entry's report function
  std::shared_ptr<telemetry::ArmMap> armMap;  // a switchback's: which arm decided what; the profiler's plan reads it
  TelemetryFiles* files = nullptr;            // where the entry is, with NCCL_ROCE_STATS set
  std::string statsPath;
  TelemetryEntry statsEntry;
  NcclLogger logger;
};

// Everything init does but allocate the context: the policy (or a switchback's arms), chunk sizes, statistics,
// the INFO line. False when a pin refuses the policy: the one init that fails (docs/rollout.md). Throws what its
// allocations throw.
bool setUpTuner(CommunicatorTuner& c, ProcessContext& process, bool ncclAsksChunkSize);

// At finalize: the last report into the statistics file, and the INFO line with the decision counts.
void reportStatistics(CommunicatorTuner& c);

}  // namespace nccl_roce::plugin

// What the tuner tells NCCL for one call: the first matching rule's first available preference, marked in
// NCCL's cost table. Never marks an entry NCCL made unavailable, never touches anything outside
// numAlgo x numProto, and leaves NCCL's own choice whenever no preference is available.
#pragma once

#include <cstdint>

#include "tuner/compiled_policy.h"

namespace nccl_roce::tuner {

// Whether NCCL can run an algorithm/protocol whose cost-table entry is `cost`. This is NCCL's own test: its
// selection (topoGetAlgoInfo in src/enqueue.cc, the same from 2.22 to 2.30) considers an entry only when
// `cost >= 0.0`. So -1.0 (NCCL_ALGO_PROTO_IGNORE, which NCCL writes into every entry before filling in the
// ones it supports), every other negative value (NCCL multiplies FP8 Ring costs by 1024, -1 included) and NaN
// are unavailable; 0.0, -0.0 (equal to it) and every positive cost are available.
inline bool isAvailable(float cost) { return cost >= 0.0f; }

// NCCL's float[numAlgo][numProto] cost table (passed to plugins as float**, contiguous, algorithm-major).
struct CostTable {
  float* entries = nullptr;
  int numAlgo = 0;
  int numProto = 0;

  bool valid() const { return entries != nullptr && numAlgo > 0 && numProto > 0; }
  bool contains(int algorithm, int protocol) const {
    return algorithm >= 0 && algorithm < numAlgo && protocol >= 0 && protocol < numProto;
  }
  float& at(int algorithm, int protocol) const { return entries[algorithm * numProto + protocol]; }
  bool available(int algorithm, int protocol) const {
    return contains(algorithm, protocol) && isAvailable(at(algorithm, protocol));
  }
};

struct CallInputs {
  int collective = 0;
  uint64_t bytes = 0;
  int pipeOps = 1;
  int regBuff = 0;
};

struct Decision {
  enum class Outcome {
    kNoRule,        // no rule matched: NCCL's choice
    kChosen,        // algorithm/protocol chosen (and channels and chunk size, if the rule sets them)
    kSettingsOnly,  // the rule keeps NCCL's algorithm/protocol and sets channels and/or chunk size
    kPassThrough,   // the rule keeps NCCL's choice entirely
    kUnavailable,   // a rule matched but none of its preferences is available: NCCL's choice
  };
  Outcome outcome = Outcome::kNoRule;
  int rule = -1;  // index into the policy's rules (the one that decided, or the last unavailable one)
  int algorithm = -1;
  int protocol = -1;
  int channels = 0;

  // Whether a rule decided something (algorithm/protocol, or only the channel count or chunk size).
  bool byRule() const { return outcome == Outcome::kChosen || outcome == Outcome::kSettingsOnly; }
};

// allowWildcards=false considers only fully named (algorithm, protocol) preferences: for callers whose table
// is not NCCL's real one (the v2 shim), where "the cheapest" cannot be known. An invalid table: kNoRule.
Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table,
                bool allowWildcards = true);

// Writes the decision into NCCL's outputs: 0.0 on the chosen entry, nChannels when the rule sets them.
inline void applyDecision(const Decision& decision, const CostTable& table, int* nChannels) {
  // decide() chooses only entries it found available; checked once more because writing over an unavailable
  // entry is the one thing that must never happen.
  if (decision.outcome == Decision::Outcome::kChosen && table.available(decision.algorithm, decision.protocol)) {
    table.at(decision.algorithm, decision.protocol) = 0.0f;
  }
  if (decision.byRule() && decision.channels > 0 && nChannels != nullptr) *nChannels = decision.channels;
}

// The chunk size the decision gives calls NCCL runs with `protocol`: the deciding rule's for that protocol when a
// rule decided, NCCL's own otherwise (no rule, or a rule whose preferences were all unavailable). Asked only by
// policies that set chunk sizes, so that the others pay nothing per call.
inline telemetry::ChunkSize chunkSizeOf(const CompiledPolicy& policy, const Decision& decision, int protocol) {
  if (!decision.byRule() || decision.rule < 0) return telemetry::ChunkSize::nccl();
  return policy.rule(static_cast<uint32_t>(decision.rule)).chunkSizes.forProtocol(protocol);
}

// The cheapest available entry among `count` entries `stride` apart from `first`, picked as NCCL picks: the
// strict minimum (the first of equal costs), starting from FLT_MAX as NCCL's search does. -1 when none.
int cheapestOf(const float* first, int stride, int count);

// NCCL's own pick from the table: the cheapest entry, algorithm-major (topoGetAlgoInfo).
bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol);

// What NCCL runs after this decision, from NCCL's table as it passed it: the rule's choice, else NCCL's own pick.
inline bool cellNcclRuns(const Decision& decision, const CostTable& table, int* algorithm, int* protocol) {
  if (decision.outcome != Decision::Outcome::kChosen) return ncclDefaultChoice(table, algorithm, protocol);
  *algorithm = decision.algorithm;
  *protocol = decision.protocol;
  return true;
}

}  // namespace nccl_roce::tuner

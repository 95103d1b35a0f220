// What the tuner tells NCCL for one call: the first matching rule's first available preference, marked in
// NCCL's cost table. Never marks an entry NCCL made unavailable (any negative value), never touches anything
// outside numAlgo x numProto, and leaves NCCL's own choice whenever no preference is available.
#pragma once

#include <cstdint>

#include "tuner/compiled_policy.h"

namespace nccl_roce::tuner {

// NCCL's float[numAlgo][numProto] cost table (passed to plugins as float**, contiguous).
struct CostTable {
  float* entries = nullptr;
  int numAlgo = 0;
  int numProto = 0;

  bool valid() const { return entries != nullptr && numAlgo > 0 && numProto > 0; }
  bool available(int algorithm, int protocol) const {
    // NaN compares false, so it is unavailable too.
    return algorithm >= 0 && algorithm < numAlgo && protocol >= 0 && protocol < numProto &&
           entries[algorithm * numProto + protocol] >= 0.0f;
  }
  float cost(int algorithm, int protocol) const { return entries[algorithm * numProto + protocol]; }
};

struct CallInputs {
  int collective = 0;
  uint64_t bytes = 0;
  int pipeOps = 1;
  int regBuff = 0;
};

struct Decision {
  enum class Outcome {
    kNoRule,       // no rule matched: NCCL's choice
    kChosen,       // algorithm/protocol chosen (and channels, if the rule sets them)
    kChannelsOnly, // the rule keeps NCCL's algorithm/protocol and sets channels
    kPassThrough,  // the rule keeps NCCL's choice entirely
    kUnavailable,  // a rule matched but none of its preferences is available: NCCL's choice
  };
  Outcome outcome = Outcome::kNoRule;
  int rule = -1;  // index into the policy's rules (the one that decided, or the last unavailable one)
  int algorithm = -1;
  int protocol = -1;
  int channels = 0;
};

// allowWildcards=false considers only fully named (algorithm, protocol) preferences: for callers whose table
// is not NCCL's real one (the v2 shim), where "the cheapest" cannot be known.
Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table,
                bool allowWildcards = true);

// Writes the decision into NCCL's outputs: 0.0 on the chosen entry, nChannels when the rule sets them.
void applyDecision(const Decision& decision, CostTable& table, int* nChannels);

// NCCL's own pick from the table: the strict minimum over entries >= 0, algorithm-major (enqueue.cc).
bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol);

}  // namespace nccl_roce::tuner

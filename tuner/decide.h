// What the tuner tells NCCL for one call: the first matching rule's first available preference, marked in
// NCCL's cost table. Never marks an entry NCCL made unavailable (any negative value), never touches anything
// outside numAlgo x numProto, and leaves NCCL's own choice whenever no preference is available.
// The call path is inline (below): it is nearly all of what a getCollInfo call costs (docs/performance.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

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
    return static_cast<unsigned>(algorithm) < static_cast<unsigned>(numAlgo) &&
           static_cast<unsigned>(protocol) < static_cast<unsigned>(numProto) &&
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
// is not NCCL's real one (the v2 shim), where "the cheapest" cannot be known. An invalid table: kNoRule.
inline Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table,
                       bool allowWildcards = true);

// Writes the decision into NCCL's outputs: 0.0 on the chosen entry, nChannels when the rule sets them.
inline void applyDecision(const Decision& decision, CostTable& table, int* nChannels);

// NCCL's own pick from the table: the strict minimum over entries >= 0, algorithm-major (enqueue.cc).
bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol);

namespace detail {

// An (algorithm, protocol) pair returned in registers; algorithm -1: none available.
struct Cell {
  int algorithm;
  int protocol;
};

// The cheapest available entry along one row (fixed algorithm) or one column (fixed protocol) of the table;
// ties keep the lower index, as NCCL does. Costs are compared as bit patterns: non-negative floats order like
// their bits, and every negative one (sign bit set), like NaN and +inf, is at or above the bits of +inf, so
// `bits < best` means "available and cheaper" in one unsigned compare. (-0.0 counts as unavailable here; NCCL
// never writes it.) A macro, not a lambda: a lambda's captures would live in memory.
__attribute__((always_inline)) inline Cell cheapestIn(const CostTable& table, int algorithm, int protocol) {
  const float* first;
  int stride, count;
  if (algorithm >= 0) {
    if (algorithm >= table.numAlgo) return {-1, -1};
    first = table.entries + algorithm * table.numProto;
    stride = 1;
    count = table.numProto;
  } else {
    if (protocol >= table.numProto) return {-1, -1};
    first = table.entries + protocol;
    stride = table.numProto;
    count = table.numAlgo;
  }
  uint32_t best = 0x7f800000u;  // +inf
  int found = -1;
#define NCCL_ROCE_VISIT(i)                        \
  {                                               \
    uint32_t bits;                                \
    std::memcpy(&bits, &first[(i) * stride], 4);  \
    bool better = bits < best;                    \
    best = better ? bits : best;                  \
    found = better ? (i) : found;                 \
  }
  // A column of NCCL's table has 7 entries (6 before 2.23): unrolled for those, a loop for anything else.
  if (count == 7 || count == 6) {
    NCCL_ROCE_VISIT(0) NCCL_ROCE_VISIT(1) NCCL_ROCE_VISIT(2) NCCL_ROCE_VISIT(3) NCCL_ROCE_VISIT(4) NCCL_ROCE_VISIT(5)
    if (count == 7) NCCL_ROCE_VISIT(6)
  } else {
    for (int i = 0; i < count; ++i) NCCL_ROCE_VISIT(i)
  }
#undef NCCL_ROCE_VISIT
  if (found < 0) return {-1, -1};
  return algorithm >= 0 ? Cell{algorithm, found} : Cell{found, protocol};
}

// The first available preference; a wildcard takes the cheapest available entry of its row or column.
__attribute__((always_inline)) inline Cell resolveChoices(const CompiledPolicy::PackedChoice* begin,
                                                          const CompiledPolicy::PackedChoice* end,
                                                          const CostTable& table, bool allowWildcards) {
  for (const CompiledPolicy::PackedChoice* it = begin; it != end; ++it) {
    const CompiledPolicy::PackedChoice choice = *it;
    if (choice.algorithm >= 0 && choice.protocol >= 0) {
      if (table.available(choice.algorithm, choice.protocol)) return {choice.algorithm, choice.protocol};
    } else if (allowWildcards) {
      Cell cell = cheapestIn(table, choice.algorithm, choice.protocol);
      if (cell.algorithm >= 0) return cell;
    }
  }
  return {-1, -1};
}

}  // namespace detail

// always_inline: a getCollInfo entry point then holds the whole call path (no call, no Decision in memory).
__attribute__((always_inline)) inline Decision decide(const CompiledPolicy& policy, const CallInputs& call,
                                                      const CostTable& table, bool allowWildcards) {
  Decision decision;
  if (!table.valid()) return decision;
  CompiledPolicy::Candidates candidates = policy.candidates(call.collective, call.bytes);
  for (const CompiledPolicy::Entry* e = candidates.begin; e != candidates.end; ++e) {
    if (!e->matches(call.pipeOps, call.regBuff)) continue;
    decision.rule = static_cast<int>(e->rule);
    if (e->choiceCount == 0) {
      decision.channels = e->channels;
      decision.outcome = e->channels > 0 ? Decision::Outcome::kChannelsOnly : Decision::Outcome::kPassThrough;
      return decision;
    }
    detail::Cell cell = detail::resolveChoices(e->choices, e->choices + e->choiceCount, table, allowWildcards);
    if (cell.algorithm >= 0) {
      decision.algorithm = cell.algorithm;
      decision.protocol = cell.protocol;
      decision.channels = e->channels;
      decision.outcome = Decision::Outcome::kChosen;
      return decision;
    }
    decision.outcome = Decision::Outcome::kUnavailable;
    if (!policy.unavailableFallsThrough()) return decision;
  }
  return decision;
}

__attribute__((always_inline)) inline void applyDecision(const Decision& decision, CostTable& table, int* nChannels) {
  if (decision.outcome == Decision::Outcome::kChosen) {
    // decide() only chooses in-range entries it found >= 0; the sign is checked once more because writing
    // over an unavailable entry is the one thing that must never happen.
    float& cost = table.entries[decision.algorithm * table.numProto + decision.protocol];
    if (cost >= 0.0f) cost = 0.0f;
  }
  if ((decision.outcome == Decision::Outcome::kChosen || decision.outcome == Decision::Outcome::kChannelsOnly) &&
      decision.channels > 0 && nChannels != nullptr) {
    *nChannels = decision.channels;
  }
}

}  // namespace nccl_roce::tuner

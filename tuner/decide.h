// What the tuner tells NCCL for one call: the first matching rule's first available preference, marked in
// NCCL's cost table so that every NCCL line runs it (docs/tuner.md, "What NCCL is told"). Never writes an entry NCCL
// made unavailable, never writes a negative cost, never touches anything outside numAlgo x numProto, and leaves
// NCCL's own choice (the table untouched) whenever no preference is available.
#pragma once

#include <cstdint>

#include "tuner/compiled_policy.h"

namespace nccl_roce::tuner {

// Whether NCCL can run an algorithm/protocol whose cost-table entry is `cost` as NCCL passed it. Through 2.30 this is
// NCCL's own test: its selection (topoGetAlgoInfo in src/enqueue.cc, 2.22 - 2.30) considers an entry only when
// `cost >= 0.0`. So -1.0 (NCCL_ALGO_PROTO_IGNORE, which NCCL writes into every entry before filling in the
// ones it supports), every other negative value (NCCL multiplies FP8 Ring costs by 1024, -1 included) and NaN
// are unavailable; 0.0, -0.0 (equal to it) and every positive cost are available. From 2.31 NCCL passes -1.0 for
// every entry it has no candidate for and the candidate's cost (above 0) for the others, and reads back only the
// candidates' entries: the same test tells them apart.
inline bool isAvailable(float cost) {
  return cost >= 0.0f;
}

// How NCCL picks from the table after getCollInfo.
enum class SelectionRule : uint8_t {
  // NCCL 2.19 - 2.30 (topoGetAlgoInfo): the smallest entry >= 0; of equal costs the first, algorithm-major.
  kFirstSmallestAvailable,
  // NCCL 2.31 and later (ncclTuningCompute, src/tuning/tuning.cc): the plain minimum over the entries it computed
  // (a negative value written there would win, not be skipped); of equal costs the last.
  kLastPlainMinimum,
};

// What the tuner writes into an available entry it must keep NCCL from taking (docs/tuner.md): far above any cost
// NCCL computes (microseconds), and below where either rule starts its search (FLT_MAX; 3.6e9 before 2.23).
inline constexpr float kAvoidCost = 1.0e9f;

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

// Whether any entry of the table is 0.0 or -0.0, four entries at a time (GCC's vector types: SSE on x86, NEON on
// Arm): every chosen call asks, within the tuner's budget (docs/performance.md). NCCL's tables hold 7 x 3 entries
// (6 x 3 before 2.23): six reads of four, the last two overlapping the others, cover them without a loop.
inline bool anyZero(const CostTable& table) {
  typedef float Floats __attribute__((vector_size(16)));
  typedef int Ints __attribute__((vector_size(16)));
  const float* e = table.entries;
  const int cells = table.numAlgo * table.numProto;
  if (cells < 16 || cells > 24) {
    bool found = false;
    for (int i = 0; i < cells; ++i) found |= e[i] == 0.0f;
    return found;
  }
  auto four = [e](int at) {
    Floats v;
    __builtin_memcpy(&v, e + at, sizeof(v));
    return v == 0.0f;
  };
  Ints zero = four(0) | four(4) | four(8) | four(12) | four(cells < 20 ? cells - 4 : 16) | four(cells - 4);
  uint64_t halves[2];
  __builtin_memcpy(halves, &zero, sizeof(halves));
  return (halves[0] | halves[1]) != 0;
}

// Makes `chosen` (an available entry) the one entry both rules take: 0.0 there, and kAvoidCost on any other
// available entry as cheap (only 0.0 or -0.0 can be), since the rules break ties at opposite ends. NCCL's own costs
// are never 0, so the second part is a check that finds nothing.
void avoidTiesWith(const CostTable& table, const float* chosen);
inline void markChosen(const CostTable& table, float* chosen) {
  if (anyZero(table)) avoidTiesWith(table, chosen);
  *chosen = 0.0f;
}

// Writes the decision into NCCL's outputs: the chosen entry marked, nChannels when the rule sets them.
inline void applyDecision(const Decision& decision, const CostTable& table, int* nChannels) {
  // decide() chooses only entries of the table it found available; checked once more because writing over an
  // unavailable entry is the one thing that must never happen.
  if (decision.outcome == Decision::Outcome::kChosen && isAvailable(table.at(decision.algorithm, decision.protocol))) {
    markChosen(table, &table.at(decision.algorithm, decision.protocol));
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

// The cheapest available entry among `count` entries `stride` apart from `first`: the strict minimum, the first of
// equal costs (a wildcard's pick, which the tuner then marks, so that NCCL's tie rule never matters). -1 when none.
int cheapestOf(const float* first, int stride, int count);

// NCCL's own pick from the table as it passed it, by its rule.
bool ncclDefaultChoice(const CostTable& table, SelectionRule rule, int* algorithm, int* protocol);

// What NCCL runs after this decision, from NCCL's table as it passed it: the rule's choice, else NCCL's own pick.
inline bool cellNcclRuns(const Decision& decision, const CostTable& table, SelectionRule rule, int* algorithm,
                         int* protocol) {
  if (decision.outcome != Decision::Outcome::kChosen) return ncclDefaultChoice(table, rule, algorithm, protocol);
  *algorithm = decision.algorithm;
  *protocol = decision.protocol;
  return true;
}

}  // namespace nccl_roce::tuner

#include "tuner/decide.h"

#include <limits>

namespace nccl_roce::tuner {

namespace {

// The cheapest available entry along one row (fixed algorithm) or one column (fixed protocol) of the table.
// Negative entries (and NaN) fail `>= 0` and are never taken; ties keep the lower index, as NCCL does.
bool cheapestIn(const CostTable& table, int algorithm, int protocol, int* outAlgorithm, int* outProtocol) {
  float best = std::numeric_limits<float>::infinity();
  int found = -1;
  if (algorithm >= 0) {
    if (algorithm >= table.numAlgo) return false;
    const float* row = table.entries + algorithm * table.numProto;
    for (int p = 0; p < table.numProto; ++p) {
      float cost = row[p];
      if (cost >= 0.0f && cost < best) {
        best = cost;
        found = p;
      }
    }
    *outAlgorithm = algorithm;
    *outProtocol = found;
    return found >= 0;
  }
  if (protocol >= table.numProto) return false;
  const float* column = table.entries + protocol;
  const int stride = table.numProto;
  auto visit = [&](int a) {
    float cost = column[a * stride];
    bool better = cost >= 0.0f && cost < best;  // branch-free: cheaper than a data-dependent branch per row
    best = better ? cost : best;
    found = better ? a : found;
  };
  // NCCL's tables have 6 rows (before 2.23) or 7: unrolled for those, a loop for anything larger.
  int rows = table.numAlgo;
  int a = 0;
  if (rows >= 6) {
    visit(0), visit(1), visit(2), visit(3), visit(4), visit(5);
    a = 6;
  }
  for (; a < rows; ++a) visit(a);
  *outAlgorithm = found;
  *outProtocol = protocol;
  return found >= 0;
}

// The first available preference; a wildcard takes the cheapest available entry of its row or column.
bool resolveChoices(const CompiledPolicy::PackedChoice* begin, const CompiledPolicy::PackedChoice* end,
                    const CostTable& table, bool allowWildcards, int* algorithm, int* protocol) {
  for (const CompiledPolicy::PackedChoice* it = begin; it != end; ++it) {
    const CompiledPolicy::PackedChoice choice = *it;
    if (choice.algorithm >= 0 && choice.protocol >= 0) {
      if (table.available(choice.algorithm, choice.protocol)) {
        *algorithm = choice.algorithm;
        *protocol = choice.protocol;
        return true;
      }
    } else if (allowWildcards && cheapestIn(table, choice.algorithm, choice.protocol, algorithm, protocol)) {
      return true;
    }
  }
  return false;
}

}  // namespace

Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table, bool allowWildcards) {
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
    const CompiledPolicy::PackedChoice* choices = policy.choices() + e->choiceBegin;
    if (resolveChoices(choices, choices + e->choiceCount, table, allowWildcards, &decision.algorithm,
                       &decision.protocol)) {
      decision.channels = e->channels;
      decision.outcome = Decision::Outcome::kChosen;
      return decision;
    }
    decision.outcome = Decision::Outcome::kUnavailable;
    if (!policy.policy().unavailableFallsThrough) return decision;
  }
  return decision;
}

void applyDecision(const Decision& decision, CostTable& table, int* nChannels) {
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

bool ncclDefaultChoice(const CostTable& table, int* algorithm, int* protocol) {
  bool found = false;
  float best = 0;
  for (int a = 0; a < table.numAlgo; ++a) {
    for (int p = 0; p < table.numProto; ++p) {
      if (!table.available(a, p)) continue;
      if (!found || table.cost(a, p) < best) {
        found = true;
        best = table.cost(a, p);
        *algorithm = a;
        *protocol = p;
      }
    }
  }
  return found;
}

}  // namespace nccl_roce::tuner

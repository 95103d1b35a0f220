#include "tuner/decide.h"

namespace nccl_roce::tuner {

namespace {

// The first available preference; wildcards take the cheapest available entry of their row or column.
bool resolveChoices(const Rule& rule, const CostTable& table, bool allowWildcards, int* algorithm, int* protocol) {
  for (const Choice& choice : rule.choices) {
    if (choice.algorithm >= 0 && choice.protocol >= 0) {
      if (table.available(choice.algorithm, choice.protocol)) {
        *algorithm = choice.algorithm;
        *protocol = choice.protocol;
        return true;
      }
      continue;
    }
    if (!allowWildcards) continue;
    bool found = false;
    float best = 0;
    for (int a = 0; a < table.numAlgo; ++a) {
      if (choice.algorithm >= 0 && a != choice.algorithm) continue;
      for (int p = 0; p < table.numProto; ++p) {
        if (choice.protocol >= 0 && p != choice.protocol) continue;
        if (!table.available(a, p)) continue;
        if (!found || table.cost(a, p) < best) {
          found = true;
          best = table.cost(a, p);
          *algorithm = a;
          *protocol = p;
        }
      }
    }
    if (found) return true;
  }
  return false;
}

}  // namespace

Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table, bool allowWildcards) {
  Decision decision;
  if (!table.valid()) return decision;
  CompiledPolicy::Candidates candidates = policy.candidates(call.collective, call.bytes);
  for (const uint32_t* it = candidates.begin; it != candidates.end; ++it) {
    const Rule& rule = policy.rule(*it);
    if (!rule.pipeOps.contains(static_cast<uint64_t>(call.pipeOps < 0 ? 0 : call.pipeOps))) continue;
    if (rule.regBuff && *rule.regBuff != (call.regBuff != 0)) continue;
    decision.rule = static_cast<int>(*it);
    if (rule.choices.empty()) {
      decision.channels = rule.channels;
      decision.outcome = rule.channels > 0 ? Decision::Outcome::kChannelsOnly : Decision::Outcome::kPassThrough;
      return decision;
    }
    if (resolveChoices(rule, table, allowWildcards, &decision.algorithm, &decision.protocol)) {
      decision.channels = rule.channels;
      decision.outcome = Decision::Outcome::kChosen;
      return decision;
    }
    decision.outcome = Decision::Outcome::kUnavailable;
    if (!policy.policy().unavailableFallsThrough) return decision;
  }
  return decision;
}

void applyDecision(const Decision& decision, CostTable& table, int* nChannels) {
  if (decision.outcome == Decision::Outcome::kChosen && table.available(decision.algorithm, decision.protocol)) {
    table.entries[decision.algorithm * table.numProto + decision.protocol] = 0.0f;
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

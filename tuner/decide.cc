#include "tuner/decide.h"

#include <cfloat>

namespace nccl_roce::tuner {

namespace {

struct Cell {
  int algorithm = -1;  // -1: none
  int protocol = -1;
};

// A preference resolved against the table. A wildcard takes the cheapest available entry of its row (a named
// algorithm) or column (a named protocol).
Cell resolve(const policy::Choice& choice, const CostTable& table, bool allowWildcards) {
  if (choice.algorithm >= 0 && choice.protocol >= 0) {
    return table.available(choice.algorithm, choice.protocol) ? Cell{choice.algorithm, choice.protocol} : Cell{};
  }
  if (!allowWildcards) return {};
  if (choice.algorithm >= 0 && choice.algorithm < table.numAlgo) {
    int protocol = cheapestOf(&table.at(choice.algorithm, 0), 1, table.numProto);
    return protocol >= 0 ? Cell{choice.algorithm, protocol} : Cell{};
  }
  if (choice.protocol >= 0 && choice.protocol < table.numProto) {
    int algorithm = cheapestOf(&table.at(0, choice.protocol), table.numProto, table.numAlgo);
    return algorithm >= 0 ? Cell{algorithm, choice.protocol} : Cell{};
  }
  return {};
}

Cell firstAvailable(const std::vector<policy::Choice>& choices, const CostTable& table, bool allowWildcards) {
  for (const policy::Choice& choice : choices) {
    Cell cell = resolve(choice, table, allowWildcards);
    if (cell.algorithm >= 0) return cell;
  }
  return {};
}

}  // namespace

Decision decide(const CompiledPolicy& policy, const CallInputs& call, const CostTable& table, bool allowWildcards) {
  Decision decision;
  if (!table.valid()) return decision;
  for (uint32_t index : policy.candidates(call.collective, call.bytes)) {
    const policy::Rule& rule = policy.rule(index);
    if (!ruleMatchesCall(rule, call.pipeOps, call.regBuff)) continue;
    decision.rule = static_cast<int>(index);
    if (rule.choices.empty()) {
      decision.outcome = rule.channels > 0 || rule.chunkSizes.any() ? Decision::Outcome::kSettingsOnly
                                                                    : Decision::Outcome::kPassThrough;
      decision.channels = rule.channels;
      return decision;
    }
    Cell cell = firstAvailable(rule.choices, table, allowWildcards);
    if (cell.algorithm >= 0) {
      decision.outcome = Decision::Outcome::kChosen;
      decision.algorithm = cell.algorithm;
      decision.protocol = cell.protocol;
      decision.channels = rule.channels;
      return decision;
    }
    decision.outcome = Decision::Outcome::kUnavailable;
    if (!policy.unavailableFallsThrough()) return decision;
  }
  return decision;
}

int cheapestOf(const float* first, int stride, int count) {
  float best = FLT_MAX;
  int found = -1;
  for (int i = 0; i < count; ++i) {
    float cost = first[static_cast<ptrdiff_t>(i) * stride];
    if (isAvailable(cost) && cost < best) {
      best = cost;
      found = i;
    }
  }
  return found;
}

void avoidTiesWith(const CostTable& table, const float* chosen) {
  for (float *e = table.entries, *end = e + static_cast<ptrdiff_t>(table.numAlgo) * table.numProto; e != end; ++e) {
    if (*e == 0.0f && e != chosen) *e = kAvoidCost;
  }
}

bool ncclDefaultChoice(const CostTable& table, SelectionRule rule, int* algorithm, int* protocol) {
  if (!table.valid()) return false;
  const int cells = table.numAlgo * table.numProto;
  int cell = cheapestOf(table.entries, 1, cells);
  if (cell < 0) return false;
  if (rule == SelectionRule::kLastPlainMinimum) {
    for (int i = cells - 1; i > cell; --i) {
      if (table.entries[i] == table.entries[cell]) {
        cell = i;
        break;
      }
    }
  }
  *algorithm = cell / table.numProto;
  *protocol = cell % table.numProto;
  return true;
}

}  // namespace nccl_roce::tuner

#include "inspect/explain.h"

#include <memory>
#include <vector>

#include "common/log.h"
#include "common/strings.h"
#include "policy/chunk_size_checks.h"
#include "policy/nccl_availability.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"
#include "tuner/compiled_policy.h"
#include "tuner/experiment.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::inspect {

namespace {

std::string describeRule(const policy::Rule& rule) {
  std::string out = "line " + std::to_string(rule.position.line);
  if (!rule.name.empty()) out += " '" + rule.name + "'";
  return out;
}

std::string describeChoice(const policy::Choice& c) {
  if (c.algorithm >= 0 && c.protocol >= 0)
    return std::string(telemetry::algorithmName(c.algorithm)) + "/" + telemetry::protocolName(c.protocol);
  if (c.algorithm >= 0)
    return std::string(telemetry::algorithmName(c.algorithm)) + " with NCCL's cheapest protocol for it";
  return std::string(telemetry::protocolName(c.protocol)) + " on NCCL's cheapest algorithm offering it";
}

std::string channelsText(int channels) {
  return channels > 0 ? "nChannels " + std::to_string(channels) : "nChannels 0 (NCCL decides)";
}

// "NCCL's", "256K", "Simple 1M, LL128 240K (NCCL's for LL)": what a rule asks of getChunkSize.
std::string chunkSizesText(const policy::ChunkSizes& chunks) {
  if (!chunks.any()) return "NCCL's";
  const telemetry::ChunkSize& first = chunks.byProtocol[0];
  if (chunks == policy::ChunkSizes::all(first)) return telemetry::describeChunkSize(first);
  std::string set, unset;
  for (int p = telemetry::kNumProtocols - 1; p >= 0; --p) {  // Simple first: the protocol of the largest transfers
    std::string& list = chunks.byProtocol[p].isNccl() ? unset : set;
    list += (list.empty() ? "" : ", ") + std::string(telemetry::protocolName(p));
    if (!chunks.byProtocol[p].isNccl()) list += " " + telemetry::describeChunkSize(chunks.byProtocol[p]);
  }
  return set + " (NCCL's for " + unset + ")";
}

// The chunk size line of a firing rule, with where NCCL cannot use it for this call's first preference.
std::string describeChunkSizes(const policy::Policy& policy, const policy::Rule& rule, int collective) {
  std::string out = "chunk size: " + chunkSizesText(rule.chunkSizes);
  if (!rule.chunkSizes.any()) return out + " (NCCL computes it)\n";
  out += " (served through getChunkSize, NCCL 2.30.2 and later; older NCCL keeps its own)\n";
  if (rule.choices.empty()) return out;
  const policy::Choice& first = rule.choices.front();
  if (first.algorithm < 0 || first.protocol < 0) return out;
  const telemetry::ChunkSize& chunk = rule.chunkSizes.forProtocol(first.protocol);
  if (chunk.kind != telemetry::ChunkSize::Kind::kBytes) return out;
  const policy::NcclBuffers buffers = policy::buffersOf(policy);
  if (policy::checkChunkBytes(chunk.bytes, buffers, collective, first.algorithm, first.protocol) ==
      policy::ChunkCheck::kUsable) {
    return out;
  }
  return out + "  for " + telemetry::collectiveName(collective) + " on " + telemetry::algorithmName(first.algorithm) +
         "/" + telemetry::protocolName(first.protocol) + " NCCL can use at most " +
         formatByteSize(policy::maxChunkSize(buffers, collective, first.algorithm, first.protocol)) +
         ": NCCL's own chunk size there\n";
}

// The policy (and experiment arm) in force and the call being explained.
std::string describeSetting(const policy::ActivePolicy& active, const tuner::PolicyAssignment& assignment,
                            const ExplainRequest& request) {
  std::string out;
  if (!active.error().empty()) {
    out += "policy '" + active.requested() + "' is unusable, so NCCL decides everything: " + active.error() + "\n";
  }
  const policy::Policy& policy = *assignment.policy;
  out += "policy: " + policy.name + " (" + policy.source + ", " + policy.digest + ")";
  const policy::Experiment* experiment = active.experiment() ? &*active.experiment() : nullptr;
  if (experiment && experiment->design == policy::ExperimentDesign::kSwitchback) {
    out += "; switchback experiment '" + experiment->name + "' (" + active.digest() + "): comm " +
           formatHexId(request.commId) + " runs every arm in turns of " + std::to_string(experiment->switchback.block) +
           " tuner calls, its first turn '" + assignment.arm + "' (shown)";
  } else if (experiment) {
    out += "; experiment '" + experiment->name + "' (" + active.digest() + ") gives comm " +
           formatHexId(request.commId) + " the arm '" + assignment.arm + "'";
  }
  out += "\n";
  const tuner::CallInputs& call = request.call;
  out += std::string("call: ") + telemetry::collectiveName(call.collective) + " of " + formatByteSize(call.bytes) +
         " bytes on " + std::to_string(request.nRanks) + " ranks / " + std::to_string(request.nNodes) +
         " nodes, pipe_ops " + std::to_string(call.pipeOps) + ", reg_buff " + std::to_string(call.regBuff) + "\n";
  return out;
}

// What the first matching rule tells NCCL, then each fallback in order; matching is in policy order.
std::string describeDecision(const policy::Policy& policy, const std::vector<const policy::Rule*>& matching,
                             int collective) {
  const policy::Rule& fired = *matching.front();
  std::string out = "rule: " + describeRule(fired) + " matches (size " +
                    policy::formatValueRange(fired.bytes, policy::RangeUnit::kBytes) + ", nodes " +
                    policy::formatValueRange(fired.nodes, policy::RangeUnit::kCount) + ", ranks " +
                    policy::formatValueRange(fired.ranks, policy::RangeUnit::kCount) + ")\n";
  if (fired.choices.empty()) {
    return out + "NCCL is told: keep its own algorithm and protocol; " + channelsText(fired.channels) + "\n" +
           describeChunkSizes(policy, fired, collective);
  }
  out += "NCCL is told: cost 0.0 on " + describeChoice(fired.choices.front()) + "; " + channelsText(fired.channels) +
         "\n" + describeChunkSizes(policy, fired, collective);
  out += "if unavailable (cost -1 in NCCL's table):\n";
  for (size_t i = 1; i < fired.choices.size(); ++i) out += "  then " + describeChoice(fired.choices[i]) + "\n";
  if (policy.unavailableFallsThrough) {
    // NCCL's CSV semantics: the next matching rules are the fallbacks, each with its own channels.
    for (size_t i = 1; i < matching.size(); ++i) {
      const policy::Rule& next = *matching[i];
      std::string what =
          next.choices.empty() ? std::string("NCCL's algorithm and protocol") : describeChoice(next.choices.front());
      out += "  then " + describeRule(next) + ": " + what + "; " + channelsText(next.channels) + "\n";
    }
  }
  return out + "  then NCCL's own choice (and its own channel count and chunk size)\n";
}

// The rules matching a call, in policy order: the first fires.
std::vector<const policy::Rule*> matchingRules(const tuner::CompiledPolicy& compiled, const tuner::CallInputs& call) {
  std::vector<const policy::Rule*> matching;
  for (uint32_t index : compiled.candidates(call.collective, call.bytes)) {
    if (tuner::ruleMatchesCall(compiled.rule(index), call.pipeOps, call.regBuff))
      matching.push_back(&compiled.rule(index));
  }
  return matching;
}

// One line: what a policy does with the call (the arms' summary; the arm in force gets the full explanation).
std::string summariseCall(const std::shared_ptr<const policy::Policy>& policy, const ExplainRequest& request) {
  tuner::CompiledPolicy compiled(policy, request.nRanks, request.nNodes);
  std::vector<const policy::Rule*> matching = matchingRules(compiled, request.call);
  if (matching.empty()) return "this call: no rule matches, NCCL decides";
  const policy::Rule& fired = *matching.front();
  std::string out = "this call: rule " + describeRule(fired) + ": ";
  const std::string chunk = fired.chunkSizes.any() ? "; chunk size " + chunkSizesText(fired.chunkSizes) : std::string();
  if (fired.choices.empty()) return out + "NCCL's algorithm and protocol; " + channelsText(fired.channels) + chunk;
  for (const policy::Choice& choice : fired.choices) out += describeChoice(choice) + ", else ";
  const char* last =
      policy->unavailableFallsThrough && matching.size() > 1 ? "the next matching rule" : "NCCL's own choice";
  return out + last + "; " + channelsText(fired.channels) + chunk;
}

std::string percentOf(double share) {
  return format("%.3g%%", share);
}

// Every arm of an experiment, its share of communicators, and what it does with this call.
std::string describeArms(const policy::Experiment& experiment, const ExplainRequest& request) {
  const bool switchback = experiment.design == policy::ExperimentDesign::kSwitchback;
  const std::string of = switchback ? " of turns" : " of communicators";
  std::string out =
      "arms of experiment '" + experiment.name + "' (" +
      (switchback ? "each turn's arm is a pure function of the experiment, the communicator's id and the turn"
                  : "a communicator's arm is a pure function of its id") +
      "):\n";
  for (const policy::ExperimentArm& arm : experiment.arms) {
    out += "  " + arm.name + ": " + percentOf(arm.weight) + of + ", policy '" + arm.policy->name + "' (" +
           arm.policy->source + ")\n    " + summariseCall(arm.policy, request) + "\n";
  }
  if (!experiment.explore) return out;
  const policy::Exploration& explore = *experiment.explore;
  const double share =
      explore.arms.empty() ? 0.0 : static_cast<double>(explore.weight) / static_cast<double>(explore.arms.size());
  out += "  exploration: " + percentOf(explore.weight) + of + ", split evenly over " +
         std::to_string(explore.arms.size()) + " generated arms; each decides as '" + explore.base +
         "' except that it forces one choice on the calls it explores (where NCCL does not offer it, NCCL's own "
         "choice)\n";
  for (size_t i = 0; i < explore.arms.size(); ++i) {
    const policy::ExploredChoice& choice = explore.choices[i];
    out += "    " + explore.arms[i].name + ": " + percentOf(share) + of + ", forces " +
           describeChoice({choice.algorithm, choice.protocol}) +
           (choice.channels > 0 ? " on " + std::to_string(choice.channels) + " channels" : "") +
           (choice.chunk.isNccl() ? "" : " with chunk size " + telemetry::describeChunkSize(choice.chunk)) + " for " +
           policy::collectiveList(choice.collectives) + " of " +
           policy::formatValueRange(explore.bytes, policy::RangeUnit::kBytes) + " bytes on nodes " +
           policy::formatValueRange(choice.nodes, policy::RangeUnit::kCount) + "\n      " +
           summariseCall(explore.arms[i].policy, request) + "\n";
  }
  return out;
}

}  // namespace

std::string explainCall(const policy::ActivePolicy& active, const ExplainRequest& request) {
  tuner::PolicyAssignment assignment = tuner::assignPolicy(active, request.commId);
  const auto& experiment = active.experiment();
  if (experiment && experiment->design == policy::ExperimentDesign::kSwitchback && active.error().empty()) {
    tuner::SwitchbackSchedule schedule(*experiment, request.commId);  // the first turn's arm
    const policy::ExperimentArm* first = schedule.arms()[schedule.armOf(0)];
    assignment.arm = first->name;
    if (first->policy) assignment.policy = first->policy;
  }
  std::string out = describeSetting(active, assignment, request);
  const tuner::CallInputs& call = request.call;
  tuner::CompiledPolicy compiled(assignment.policy, request.nRanks, request.nNodes);
  std::vector<const policy::Rule*> matching = matchingRules(compiled, call);
  if (matching.empty()) {
    out += "rule: none matches; NCCL is told nothing and picks algorithm, protocol, channels and chunk size itself\n";
  } else {
    out += describeDecision(*assignment.policy, matching, call.collective);
  }
  if (active.experiment()) out += describeArms(*active.experiment(), request);
  return out;
}

}  // namespace nccl_roce::inspect

#include "tuner/explain.h"

#include "common/log.h"
#include "common/strings.h"
#include "tuner/compiled_policy.h"
#include "tuner/nccl_names.h"
#include "tuner/value_range_text.h"

namespace nccl_roce::tuner {

namespace {

std::string describeRule(const Rule& rule) {
  std::string out = "line " + std::to_string(rule.position.line);
  if (!rule.name.empty()) out += " '" + rule.name + "'";
  return out;
}

std::string describeChoice(const Choice& c) {
  if (c.algorithm >= 0 && c.protocol >= 0) return std::string(algorithmName(c.algorithm)) + "/" + protocolName(c.protocol);
  if (c.algorithm >= 0) return std::string(algorithmName(c.algorithm)) + " with NCCL's cheapest protocol for it";
  return std::string(protocolName(c.protocol)) + " on NCCL's cheapest algorithm offering it";
}

std::string channelsText(int channels) {
  return channels > 0 ? "nChannels " + std::to_string(channels) : "nChannels 0 (NCCL decides)";
}

}  // namespace

std::string explainCall(const ActivePolicy& active, const ExplainRequest& request) {
  std::string out;
  if (!active.error().empty()) {
    out += "policy '" + active.requested() + "' is unusable, so NCCL decides everything: " + active.error() + "\n";
  }
  PolicyAssignment assignment = active.assign(request.commId);
  const Policy& policy = *assignment.policy;
  out += "policy: " + policy.name + " (" + policy.source + format(", content 0x%016llx)", static_cast<unsigned long long>(policy.contentHash));
  if (active.experiment()) {
    out += "; experiment '" + active.experiment()->name + "' gives comm " +
           format("0x%016llx", static_cast<unsigned long long>(request.commId)) + " the arm '" + assignment.arm + "'";
  }
  out += "\n";
  const CallInputs& call = request.call;
  out += std::string("call: ") + collectiveName(call.collective) + " of " + formatByteSize(call.bytes) + " bytes on " +
         std::to_string(request.nRanks) + " ranks / " + std::to_string(request.nNodes) + " nodes, pipe_ops " +
         std::to_string(call.pipeOps) + ", reg_buff " + std::to_string(call.regBuff) + "\n";

  auto shared = std::shared_ptr<const Policy>(assignment.policy);
  CompiledPolicy compiled(shared, request.nRanks, request.nNodes);
  CompiledPolicy::Candidates candidates = compiled.candidates(call.collective, call.bytes);
  const Rule* fired = nullptr;
  for (const CompiledPolicy::Entry* e = candidates.begin; e != candidates.end && !fired; ++e) {
    if (e->matches(call.pipeOps, call.regBuff)) fired = &compiled.rule(e->rule);
  }
  if (fired == nullptr) {
    out += "rule: none matches; NCCL is told nothing and picks algorithm, protocol and channels itself\n";
    return out;
  }
  out += "rule: " + describeRule(*fired) + " matches (size " + formatValueRange(fired->bytes, RangeUnit::kBytes) +
         ", nodes " + formatValueRange(fired->nodes, RangeUnit::kCount) + ", ranks " +
         formatValueRange(fired->ranks, RangeUnit::kCount) + ")\n";
  if (fired->choices.empty()) {
    out += "NCCL is told: keep its own algorithm and protocol; " + channelsText(fired->channels) + "\n";
    return out;
  }
  out += "NCCL is told: cost 0.0 on " + describeChoice(fired->choices.front()) + "; " + channelsText(fired->channels) +
         "\n";
  out += "if unavailable (cost -1 in NCCL's table):\n";
  for (size_t i = 1; i < fired->choices.size(); ++i) {
    out += "  then " + describeChoice(fired->choices[i]) + "\n";
  }
  if (policy.unavailableFallsThrough) {
    out += "  then the next matching rule of this NCCL-format file, if any; finally NCCL's own choice\n";
  } else {
    out += "  then NCCL's own choice (and its own channel count)\n";
  }
  return out;
}

}  // namespace nccl_roce::tuner

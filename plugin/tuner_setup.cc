// How the tuner plugin sets up one communicator at NCCL's init (plugin/communicator_tuner.h), and reports it at
// finalize.
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/settings.h"
#include "common/strings.h"
#include "plugin/communicator_tuner.h"
#include "plugin/process_context.h"
#include "telemetry/size_bucket.h"
#include "telemetry/tuner_info_line.h"

namespace nccl_roce::plugin {

namespace {

using tuner::CompiledPolicy;

// The lookup of `policy` for the communicator's shape; null where the policy has no rules (NCCL decides).
std::shared_ptr<const CompiledPolicy> compiledFor(CommunicatorTuner& c, PolicyRegistry& policies,
                                                  const std::shared_ptr<const policy::Policy>& policy) {
  if (!policy || policy->rules.empty()) return nullptr;
  PolicyRegistry::Lookup lookup = policies.lookup(policy, c.nRanks, c.nNodes);
  if (lookup.compiled->truncated() && lookup.builtNow) {
    NCCL_ROCE_WARN(c.logger, kLogTuning,
                   "tuner: policy '%s': more than %zu rules can match one call on %zu ranks / %zu nodes; only the "
                   "first %zu are considered",
                   policy->name.c_str(), CompiledPolicy::kMaxCandidatesPerSegment, c.nRanks, c.nNodes,
                   CompiledPolicy::kMaxCandidatesPerSegment);
  }
  return lookup.compiled;
}

// A switchback experiment: every arm's lookup, and the turns that pick one per call.
void setUpSwitchback(CommunicatorTuner& c, PolicyRegistry& policies) {
  const policy::Experiment& experiment = *c.active->experiment();
  c.experiment = experiment.name;
  std::vector<std::shared_ptr<const CompiledPolicy>> compiled;
  const tuner::SwitchbackSchedule order(experiment, c.commId);  // the arms' index order
  for (const policy::ExperimentArm* arm : order.arms()) compiled.push_back(compiledFor(c, policies, arm->policy));
  c.switchback = std::make_unique<tuner::SwitchbackTurns>(experiment, c.commId, std::move(compiled));
}

// The communicator's policy (or experiment arm, or a switchback's arms) and its lookup. Problems are logged once
// per process, by the first communicator that meets them (*first). False when a pin refuses the policy (logged for
// every communicator).
bool choosePolicy(CommunicatorTuner& c, PolicyRegistry& policies, const Environment& env, bool ncclAsksChunkSize,
                  bool* first) {
  PolicyRegistry::Active active = policies.active(env);
  *first = active.first;
  if (!active.warning.empty()) NCCL_ROCE_WARN(c.logger, kLogTuning | kLogInit, "tuner: %s", active.warning.c_str());
  if (!active.refusal.empty()) {
    NCCL_ROCE_WARN(c.logger, kLogTuning | kLogInit,
                   "tuner: failing the init of comm %s so that its ranks cannot run different policies: %s",
                   formatHexId(c.commId).c_str(), active.refusal.c_str());
    return false;
  }
  c.active = active.policy;
  c.digest = active.policy->digest();
  if (!active.policy->error().empty() && active.first) {
    NCCL_ROCE_WARN(c.logger, kLogTuning, "tuner: policy '%s' unusable, NCCL decides instead: %s",
                   active.policy->requested().c_str(), active.policy->error().c_str());
  }
  if (!ncclAsksChunkSize && active.first && active.policy->setsChunkSizes()) {
    NCCL_ROCE_INFO(c.logger, kLogInit | kLogTuning,
                   "tuner: policy '%s' sets chunk sizes, but this NCCL has no getChunkSize (it needs NCCL 2.30.2 "
                   "or later): NCCL keeps its own chunk sizes",
                   active.policy->requested().c_str());
  }
  const auto& experiment = active.policy->experiment();
  if (experiment && experiment->design == policy::ExperimentDesign::kSwitchback) {
    setUpSwitchback(c, policies);
    return true;
  }
  c.assignment = tuner::assignPolicy(*active.policy, c.commId);
  if (experiment && !c.assignment.arm.empty()) c.experiment = experiment->name;
  c.compiled = compiledFor(c, policies, c.assignment.policy);
  return true;
}

// The value NCCL reads for one of its variables: what this library's env plugin serves it when that is loaded
// (the user's value, else a policy default), else the process environment (where the net plugin puts them).
std::optional<std::string> ncclVariable(ProcessContext& process, const char* name) {
  if (process.envPlugin().serving()) {
    const char* value = process.envPlugin().getEnv(name);
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  }
  return process.environment().get(name);
}

// NCCL_ROCE_CHUNK_SIZE, where it is set, usable and asked for: what every getChunkSize serves.
std::optional<telemetry::ChunkSize> forcedChunkSize(CommunicatorTuner& c, ProcessContext& process,
                                                    bool ncclAsksChunkSize, bool first) {
  std::optional<std::string> text = process.environment().get(settings::kChunkSize.name);
  if (!text || text->empty()) return std::nullopt;
  StatusOr<telemetry::ChunkSize> forced = telemetry::parseChunkSize(*text);
  if (!forced.isOk()) {
    if (first) {
      NCCL_ROCE_WARN(c.logger, kLogTuning, "tuner: NCCL_ROCE_CHUNK_SIZE=%s ignored: %s", text->c_str(),
                     forced.status().message().c_str());
    }
    return std::nullopt;
  }
  if (!ncclAsksChunkSize) {
    if (first) {
      NCCL_ROCE_INFO(c.logger, kLogInit | kLogTuning,
                     "tuner: NCCL_ROCE_CHUNK_SIZE=%s ignored: this NCCL has no getChunkSize (it needs NCCL 2.30.2 "
                     "or later)",
                     text->c_str());
    }
    return std::nullopt;
  }
  return forced->isNccl() ? std::nullopt : std::optional<telemetry::ChunkSize>(*forced);
}

bool setsChunkSizes(const CompiledPolicy* compiled) {
  if (compiled == nullptr) return false;
  for (const policy::Rule& rule : compiled->policy().rules) {
    if (rule.chunkSizes.any()) return true;
  }
  return false;
}

// Whether and what getChunkSize serves: the rules' chunk sizes, or NCCL_ROCE_CHUNK_SIZE over them (the sweep
// runner forces chunk sizes with it, docs/sweep.md), within the buffers NCCL has.
void setUpChunkSizes(CommunicatorTuner& c, ProcessContext& process, bool ncclAsksChunkSize, bool first) {
  c.chunks.forced = forcedChunkSize(c, process, ncclAsksChunkSize, first);
  if (ncclAsksChunkSize && !c.chunks.forced) {
    c.chunks.fromRules = setsChunkSizes(c.compiled.get());
    for (size_t arm = 0; c.switchback && arm < c.switchback->schedule().arms().size(); ++arm) {
      c.chunks.fromRules |= setsChunkSizes(c.switchback->compiled(static_cast<int>(arm)));
    }
  }
  c.chunks.serves = c.chunks.forced.has_value() || c.chunks.fromRules;
  if (c.chunks.serves) {
    c.chunks.counts = std::make_shared<ChunkSizeCounters>();
    c.chunks.ceilings =
        policy::ChunkCeilings(policy::NcclBuffers::from([&](const char* name) { return ncclVariable(process, name); }));
  }
}

// Who the communicator is and what decides for it, as its telemetry reports it.
telemetry::PolicyIdentity identityOf(const CommunicatorTuner& c) {
  telemetry::PolicyIdentity id;
  id.experiment = c.experiment;
  // Identities (policy/policy_digest.h): the experiment's is what a pin names (= digest); the arm's policy's is
  // policy_hash (= digest without an experiment). A switchback's arms all decide for it: its policy is the
  // experiment.
  id.experimentHash = c.experiment.empty() ? "" : c.digest;
  id.digest = c.digest;
  if (c.switchback) {
    id.policy = c.experiment;
    id.policySource = c.active->experiment()->source;
    id.policyHash = c.digest;
    id.design = policy::designName(policy::ExperimentDesign::kSwitchback);
    return id;
  }
  const policy::Policy* policy = c.assignment.policy.get();
  id.policy = policy ? policy->name : "nccl";
  id.policySource = policy ? policy->source : "";
  id.policyHash = policy ? policy->digest : "";
  id.arm = c.assignment.arm;
  return id;
}

// The policies that decide for the communicator.
tuner::DecidingPolicies decidingPolicies(const CommunicatorTuner& c) {
  tuner::DecidingPolicies deciding;
  deciding.policy = c.assignment.policy;
  if (!c.switchback) return deciding;
  for (const policy::ExperimentArm* arm : c.switchback->schedule().arms())
    deciding.arms.emplace_back(arm->name, arm->policy);
  return deciding;
}

// The tuner's part of the communicator's telemetry as it is now: its identity and every decision counted so far.
// Shares what it reads, so a checkpoint can ask on the writer's thread while this communicator finalizes.
TunerNow reportNow(const CommunicatorTuner& c) {
  TunerReport base;
  base.nRanks = static_cast<int>(c.nRanks);
  base.nNodes = static_cast<int>(c.nNodes);
  base.identity = identityOf(c);
  return [base, decisions = c.decisions, deciding = decidingPolicies(c), chunks = c.chunks.counts] {
    TunerReport report = base;
    report.decisions = decisions->snapshot(deciding);
    if (chunks) {
      report.chunkSizes = telemetry::ChunkSizeCounts{chunks->served.load(std::memory_order_relaxed),
                                                     chunks->refused.load(std::memory_order_relaxed),
                                                     chunks->ambiguous.load(std::memory_order_relaxed)};
    }
    return report;
  };
}

// A switchback's plan for the profiler: the arms, turns and windows, and the map it attributes timings by.
std::shared_ptr<const telemetry::SwitchbackPlan> switchbackPlan(CommunicatorTuner& c) {
  const policy::Experiment& experiment = *c.active->experiment();
  auto plan = std::make_shared<telemetry::SwitchbackPlan>();
  for (const policy::ExperimentArm* arm : c.switchback->schedule().arms()) plan->arms.push_back(arm->name);
  plan->block = c.switchback->block();
  plan->washout = experiment.switchback.washout;
  plan->window = telemetry::switchbackWindow(plan->block, c.switchback->schedule().turnsPerRound());
  plan->turnsPerRound = c.switchback->schedule().turnsPerRound();
  plan->calls = c.switchback->countedCalls();
  c.armMap = std::make_shared<telemetry::ArmMap>();
  plan->armMap = c.armMap;
  return plan;
}

void setUpStatistics(CommunicatorTuner& c, TelemetryFiles& files, const Environment& env) {
  std::optional<std::string> path = TelemetryFiles::statsPathOf(env);
  if (!path) return;
  std::string problem = files.takeProblem();
  if (!problem.empty()) NCCL_ROCE_WARN(c.logger, kLogTuning | kLogInit, "tuner: %s", problem.c_str());
  c.statsPath = *path;
  c.decisions = std::make_shared<tuner::DecisionCounts>();
  c.files = &files;
  c.statsEntry =
      files.claim(c.statsPath, c.commId, Producer::kTuner, {static_cast<int>(c.nRanks), static_cast<int>(c.nNodes)});
  c.statsEntry.telemetry->attach(reportNow(c));
  if (c.switchback) c.statsEntry.telemetry->attachSwitchback(switchbackPlan(c));
}

// The INFO line `policy verify` and `proof` read back from NCCL's log (telemetry/tuner_info_line.h).
void logPolicyInUse(CommunicatorTuner& c) {
  telemetry::TunerInfoLine line;
  line.commId = c.commId;
  line.nRanks = static_cast<int>(c.nRanks);
  line.nNodes = static_cast<int>(c.nNodes);
  if (!c.experiment.empty()) {
    line.experiment = c.experiment;
    line.experimentDigest = c.digest;
    line.arm = c.assignment.arm;  // empty for a switchback
  }
  if (c.switchback) {
    line.switchback = true;
    for (const policy::ExperimentArm* arm : c.switchback->schedule().arms()) line.arms.push_back(arm->name);
    line.block = c.switchback->block();
    line.turnsPerRound = c.switchback->schedule().turnsPerRound();
  } else {
    const policy::Policy* policy = c.assignment.policy.get();
    line.policy = policy ? policy->name : "nccl";
    line.source = policy ? policy->source : "-";
    line.digest = policy && !policy->digest.empty() ? policy->digest : "-";
    line.rulesApplying = c.compiled ? c.compiled->applicableRules() : 0;
    line.rules = policy ? policy->rules.size() : 0;
  }
  NCCL_ROCE_INFO(c.logger, kLogInit | kLogTuning, "%s", telemetry::renderTunerInfoLine(line).c_str());
}

}  // namespace

bool setUpTuner(CommunicatorTuner& c, ProcessContext& process, bool ncclAsksChunkSize) {
  const Environment& env = process.environment();
  bool first = false;
  if (!choosePolicy(c, process.policies(), env, ncclAsksChunkSize, &first)) return false;
  c.algoOrProtoRestricted = env.get("NCCL_ALGO").has_value() || env.get("NCCL_PROTO").has_value();
  setUpChunkSizes(c, process, ncclAsksChunkSize, first);
  setUpStatistics(c, process.telemetryFiles(), env);
  logPolicyInUse(c);
  return true;
}

void reportStatistics(CommunicatorTuner& c) {
  telemetry::DecisionTotals totals = c.decisions->totals();
  c.statsEntry.telemetry->finish(reportNow(c)());
  Status written = c.files->finish(c.statsPath, c.statsEntry, Producer::kTuner);  // a failure is said once, there
  NCCL_ROCE_INFO(c.logger, kLogTuning,
                 "tuner: comm %s made %llu decisions, %llu by policy rules, %llu with no available preference%s%s",
                 formatHexId(c.commId).c_str(), static_cast<unsigned long long>(totals.calls),
                 static_cast<unsigned long long>(totals.fromRules), static_cast<unsigned long long>(totals.unavailable),
                 written.isOk() ? "; reported to " : "", written.isOk() ? c.statsPath.c_str() : "");
}

}  // namespace nccl_roce::plugin

#include "plugin/tuner_plugin.h"

#include <unistd.h>

#include <atomic>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "common/log.h"
#include "common/strings.h"
#include "plugin/nccl_logger.h"
#include "plugin/process_context.h"
#include "policy/nccl_chunk_limits.h"
#include "telemetry/nccl_names.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/decision_counts.h"
#include "tuner/experiment.h"
#include "tuner/group_chunk_decisions.h"

namespace nccl_roce::plugin {

namespace {

using tuner::CallInputs;
using tuner::CompiledPolicy;
using tuner::CostTable;
using tuner::Decision;

// How often getChunkSize served a chunk size, refused one NCCL could not use, or could not tell which applied.
// Shared with the statistics checkpoint, which may read them while the communicator finalizes.
struct ChunkSizeCounts {
  std::atomic<uint64_t> served{0}, refused{0}, ambiguous{0};
};

// What getChunkSize serves a communicator, and how often it did (docs/tuner.md, "Chunk size").
struct ChunkSizeServing {
  bool serves = false;                          // NCCL asks, and the policy (or NCCL_ROCE_CHUNK_SIZE) sets some
  std::optional<telemetry::ChunkSize> forced;   // NCCL_ROCE_CHUNK_SIZE: every call, whatever the rules say
  bool fromRules = false;  // the communicator's policy sets some (and nothing forces one): getCollInfo keeps them
  policy::ChunkCeilings ceilings;               // of the buffers this process's NCCL reads its variables as
  tuner::GroupChunkDecisions group;             // getCollInfo's decisions for getChunkSize (NCCL serialises them)
  std::shared_ptr<ChunkSizeCounts> counts;      // set when it serves
  bool refusalLogged = false;
};

// What NCCL hands back to getCollInfo and finalize for one communicator.
struct CommunicatorTuner {
  uint64_t commId = 0;
  size_t nRanks = 0;
  size_t nNodes = 0;
  tuner::PolicyAssignment assignment;
  std::string experiment;          // empty unless an experiment assigned the policy
  std::string digest;              // of what NCCL_ROCE_POLICY(_INLINE) loaded: what a pin names
  std::shared_ptr<const CompiledPolicy> compiled;  // null: NCCL decides everything; shared by comms of one shape
  bool algoOrProtoRestricted = false;              // NCCL_ALGO / NCCL_PROTO set by the user
  ChunkSizeServing chunks;
  // With NCCL_ROCE_STATS set: every call counted, reported through the communicator's telemetry entry (the
  // statistics file at each checkpoint and at finalize, the profiler's rule labels, the metrics textfile).
  std::shared_ptr<tuner::DecisionCounts> decisions;  // shared with the entry's report function
  TelemetryFiles* files = nullptr;                   // where the entry is, with NCCL_ROCE_STATS set
  std::string statsPath;
  TelemetryEntry statsEntry;
  NcclLogger logger;
};

// The communicator's policy (or experiment arm) and its lookup. Problems are logged once per process, by the
// first communicator that meets them (*first). False when a pin refuses the policy (logged for every communicator).
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
  c.assignment = tuner::assignPolicy(*active.policy, c.commId);
  if (active.policy->experiment() && !c.assignment.arm.empty()) {
    c.experiment = active.policy->experiment()->name;
  }
  if (!c.assignment.policy || c.assignment.policy->rules.empty()) return true;
  PolicyRegistry::Lookup lookup = policies.lookup(c.assignment.policy, c.nRanks, c.nNodes);
  c.compiled = lookup.compiled;
  if (c.compiled->truncated() && lookup.builtNow) {
    NCCL_ROCE_WARN(c.logger, kLogTuning,
                   "tuner: policy '%s': more than %zu rules can match one call on %zu ranks / %zu nodes; only the "
                   "first %zu are considered",
                   c.assignment.policy->name.c_str(), CompiledPolicy::kMaxCandidatesPerSegment, c.nRanks, c.nNodes,
                   CompiledPolicy::kMaxCandidatesPerSegment);
  }
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

// Whether and what getChunkSize serves: the rules' chunk sizes, or NCCL_ROCE_CHUNK_SIZE over them (the sweep
// runner forces chunk sizes with it, docs/sweep.md), within the buffers NCCL has.
void setUpChunkSizes(CommunicatorTuner& c, ProcessContext& process, bool ncclAsksChunkSize, bool first) {
  if (auto text = process.environment().get("NCCL_ROCE_CHUNK_SIZE"); text && !text->empty()) {
    StatusOr<telemetry::ChunkSize> forced = telemetry::parseChunkSize(*text);
    if (!forced.isOk()) {
      if (first) {
        NCCL_ROCE_WARN(c.logger, kLogTuning, "tuner: NCCL_ROCE_CHUNK_SIZE=%s ignored: %s", text->c_str(),
                       forced.status().message().c_str());
      }
    } else if (!ncclAsksChunkSize) {
      if (first) {
        NCCL_ROCE_INFO(c.logger, kLogInit | kLogTuning,
                       "tuner: NCCL_ROCE_CHUNK_SIZE=%s ignored: this NCCL has no getChunkSize (it needs NCCL 2.30.2 "
                       "or later)",
                       text->c_str());
      }
    } else if (!forced->isNccl()) {
      c.chunks.forced = *forced;
    }
  }
  if (c.compiled && ncclAsksChunkSize && !c.chunks.forced) {
    for (const policy::Rule& rule : c.compiled->policy().rules) c.chunks.fromRules |= rule.chunkSizes.any();
  }
  c.chunks.serves = c.chunks.forced.has_value() || c.chunks.fromRules;
  if (c.chunks.serves) {
    c.chunks.counts = std::make_shared<ChunkSizeCounts>();
    c.chunks.ceilings =
        policy::ChunkCeilings(policy::NcclBuffers::from([&](const char* name) { return ncclVariable(process, name); }));
  }
}

// Who the communicator is and what decides for it, as its telemetry reports it.
telemetry::PolicyIdentity identityOf(const CommunicatorTuner& c) {
  const policy::Policy* policy = c.assignment.policy.get();
  telemetry::PolicyIdentity id;
  id.experiment = c.experiment;
  // Identities (policy/policy_digest.h): the experiment's is what a pin names (= digest); the arm's policy's is
  // policy_hash (= digest without an experiment).
  id.experimentHash = c.experiment.empty() ? "" : c.digest;
  id.policy = policy ? policy->name : "nccl";
  id.policySource = policy ? policy->source : "";
  id.policyHash = policy ? policy->digest : "";
  id.digest = c.digest;
  id.arm = c.assignment.arm;
  return id;
}

// The tuner's part of the communicator's telemetry as it is now: its identity and every decision counted so far.
// Shares what it reads, so a checkpoint can ask on the writer's thread while this communicator finalizes.
TunerNow reportNow(const CommunicatorTuner& c) {
  TunerReport base;
  base.nRanks = static_cast<int>(c.nRanks);
  base.nNodes = static_cast<int>(c.nNodes);
  base.identity = identityOf(c);
  return [base, decisions = c.decisions, policy = c.assignment.policy, chunks = c.chunks.counts] {
    TunerReport report = base;
    report.decisions = decisions->snapshot(policy.get());
    if (chunks) {
      report.chunkSizes = telemetry::ChunkSizeServing{chunks->served.load(std::memory_order_relaxed),
                                                      chunks->refused.load(std::memory_order_relaxed),
                                                      chunks->ambiguous.load(std::memory_order_relaxed)};
    }
    return report;
  };
}

void setUpStatistics(CommunicatorTuner& c, TelemetryFiles& files, const Environment& env) {
  auto prefix = env.get("NCCL_ROCE_STATS");
  if (!prefix || prefix->empty()) return;
  std::string problem = files.takeProblem();
  if (!problem.empty()) NCCL_ROCE_WARN(c.logger, kLogTuning | kLogInit, "tuner: %s", problem.c_str());
  c.statsPath = TelemetryFiles::pathFor(*prefix, static_cast<long>(::getpid()));
  c.decisions = std::make_shared<tuner::DecisionCounts>();
  c.files = &files;
  c.statsEntry =
      files.claim(c.statsPath, c.commId, Producer::kTuner, {static_cast<int>(c.nRanks), static_cast<int>(c.nNodes)});
  c.statsEntry.telemetry->attach(reportNow(c));
}

void logPolicyInUse(CommunicatorTuner& c) {
  const policy::Policy* policy = c.assignment.policy.get();
  NCCL_ROCE_INFO(
      c.logger, kLogInit | kLogTuning,
      "tuner: comm %s (%zu ranks, %zu nodes) uses policy '%s' (%s, %s)%s: %zu of %zu rules apply",
      formatHexId(c.commId).c_str(), c.nRanks, c.nNodes, policy ? policy->name.c_str() : "nccl",
      policy ? policy->source.c_str() : "-", policy && !policy->digest.empty() ? policy->digest.c_str() : "-",
      c.experiment.empty() ? ""
                           : (", experiment '" + c.experiment + "' (" + c.digest + ") arm " + c.assignment.arm).c_str(),
      c.compiled ? c.compiled->applicableRules() : 0, policy ? policy->rules.size() : 0);
}

void reportStatistics(CommunicatorTuner& c) {
  telemetry::DecisionTotals totals = c.decisions->totals();
  c.statsEntry.telemetry->finish(reportNow(c)());
  Status written = c.files->finish(c.statsPath, c.statsEntry, Producer::kTuner);
  if (!written.isOk()) {
    NCCL_ROCE_WARN(c.logger, kLogTuning, "tuner: cannot write statistics: %s", written.toString().c_str());
  }
  NCCL_ROCE_INFO(c.logger, kLogTuning,
                 "tuner: comm %s made %llu decisions, %llu by policy rules, %llu with no available preference%s%s",
                 formatHexId(c.commId).c_str(), static_cast<unsigned long long>(totals.calls),
                 static_cast<unsigned long long>(totals.fromRules), static_cast<unsigned long long>(totals.unavailable),
                 written.isOk() ? "; reported to " : "", written.isOk() ? c.statsPath.c_str() : "");
}

}  // namespace

ncclResult_t tunerInit(ProcessContext& process, void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, bool ncclAsksChunkSize) noexcept {
  if (context == nullptr) return ncclSuccess;
  *context = nullptr;
  auto* c = new (std::nothrow) CommunicatorTuner();
  if (c == nullptr) return ncclSuccess;  // no context: every call leaves NCCL's choice
  c->commId = commId;
  c->nRanks = nRanks;
  c->nNodes = nNodes;
  c->logger.setFunction(logFunction);
  try {
    if (logFunction != nullptr) process.envPlugin().flushPendingLog(c->logger);
    const Environment& env = process.environment();
    bool first = false;
    if (!choosePolicy(*c, process.policies(), env, ncclAsksChunkSize, &first)) {
      delete c;
      return ncclInvalidUsage;  // the one deliberate init failure: the operator's pin (docs/rollout.md)
    }
    c->algoOrProtoRestricted = env.get("NCCL_ALGO").has_value() || env.get("NCCL_PROTO").has_value();
    setUpChunkSizes(*c, process, ncclAsksChunkSize, first);
    setUpStatistics(*c, process.telemetryFiles(), env);
    logPolicyInUse(*c);
  } catch (...) {
    c->compiled.reset();
    c->decisions.reset();
    c->chunks = ChunkSizeServing();  // serves nothing, keeps nothing
    if (c->files != nullptr) {
      try {
        (void)c->files->finish(c->statsPath, c->statsEntry, Producer::kTuner);  // no entry stays live for it
      } catch (...) {
      }
      c->files = nullptr;
    }
    // printf formats the id: this line may follow a failed allocation, so it makes none of its own.
    NCCL_ROCE_WARN(c->logger, kLogTuning, "tuner: initialisation failed; NCCL decides for comm 0x%016llx",
                   static_cast<unsigned long long>(commId));
  }
  *context = c;
  return ncclSuccess;
}

ncclResult_t tunerInit(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                       bool ncclAsksChunkSize) noexcept {
  ProcessContext* process = processContext();
  if (process == nullptr) {
    if (context != nullptr) *context = nullptr;  // every call leaves NCCL's choice
    return ncclSuccess;
  }
  return tunerInit(*process, context, commId, nRanks, nNodes, logFunction, ncclAsksChunkSize);
}

namespace {

// The chunk size the deciding rule sets for what NCCL will run, kept for getChunkSize; its code for statistics.
// Called only where the policy sets chunk sizes: the other communicators pay nothing for them per call.
uint32_t keepChunkSize(CommunicatorTuner& c, const CallInputs& call, const Decision& decision, const CostTable& table) {
  int algorithm = -1, protocol = -1;
  if (!tuner::cellNcclRuns(decision, table, &algorithm, &protocol)) return 0;
  const telemetry::ChunkSize chunk = tuner::chunkSizeOf(*c.compiled, decision, protocol);
  c.chunks.group.decided(call.collective, algorithm, protocol, chunk);
  return chunk.code();
}

}  // namespace

ncclResult_t tunerGetCollInfo(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr || collCostTable == nullptr) return ncclSuccess;
  // NCCL passes a contiguous float[numAlgo][numProto] cast to float**; decide() checks its shape.
  CostTable table{reinterpret_cast<float*>(collCostTable), numAlgo, numProto};
  CallInputs call{static_cast<int>(collType), nBytes, numPipeOps, regBuff};
  Decision decision = c->compiled ? tuner::decide(*c->compiled, call, table) : Decision{};
  // Both read NCCL's table as it passed it, before it is marked.
  const uint32_t chunkCode = c->chunks.fromRules ? keepChunkSize(*c, call, decision, table) : 0;
  if (c->decisions) {
    try {
      c->decisions->record(call, decision, table, chunkCode);
    } catch (...) {
      // Statistics are best effort; the decision stands.
    }
  }
  tuner::applyDecision(decision, table, nChannels);
  return ncclSuccess;
}

ncclResult_t tunerGetCollInfoWithoutTable(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                          int* algorithm, int* protocol, int* nChannels) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr || !c->compiled || c->algoOrProtoRestricted || algorithm == nullptr || protocol == nullptr) {
    return ncclSuccess;
  }
  // What NCCL 2.21 always offers: Ring with LL and Simple, and Tree with them for all-reduce.
  float entries[6 * telemetry::kNumProtocols];
  for (float& entry : entries) entry = -1.0f;
  CostTable known{entries, 6, telemetry::kNumProtocols};
  known.at(NCCL_ALGO_RING, NCCL_PROTO_LL) = known.at(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE) = 1.0f;
  if (collType == ncclFuncAllReduce) {
    known.at(NCCL_ALGO_TREE, NCCL_PROTO_LL) = known.at(NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE) = 1.0f;
  }
  Decision d = tuner::decide(*c->compiled, {static_cast<int>(collType), nBytes, numPipeOps, 0}, known,
                             /*allowWildcards=*/false);
  if (d.outcome == Decision::Outcome::kChosen) {
    *algorithm = d.algorithm;
    *protocol = d.protocol;
  }
  if (d.byRule() && d.channels > 0 && nChannels != nullptr) *nChannels = d.channels;
  return ncclSuccess;
}

ncclResult_t tunerGetChunkSize(void* context, ncclFunc_t collType, size_t /*nBytes: one channel's piece*/, int algo,
                               int proto, int /*nChannels*/, size_t* chunkSize) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr || chunkSize == nullptr || !c->chunks.serves) return ncclSuccess;
  ChunkSizeServing& chunks = c->chunks;
  const int collective = static_cast<int>(collType);
  telemetry::ChunkSize wanted;
  if (chunks.forced) {
    wanted = *chunks.forced;
  } else {
    tuner::GroupChunkDecisions::Found found = chunks.group.find(collective, algo, proto);
    if (found.ambiguous) chunks.counts->ambiguous.fetch_add(1, std::memory_order_relaxed);
    wanted = found.chunk;
  }
  if (wanted.isNccl()) return ncclSuccess;
  bool refused = false;
  const uint64_t ncclOwn = *chunkSize;
  const uint64_t served = policy::chunkSizeToServe(wanted, ncclOwn, chunks.ceilings, collective, algo, proto, &refused);
  if (!refused) {
    *chunkSize = static_cast<size_t>(served);
    chunks.counts->served.fetch_add(1, std::memory_order_relaxed);
    return ncclSuccess;
  }
  chunks.counts->refused.fetch_add(1, std::memory_order_relaxed);
  if (!chunks.refusalLogged) {
    chunks.refusalLogged = true;
    try {  // the strings below allocate
      NCCL_ROCE_INFO(
          c->logger, kLogTuning,
          "tuner: comm %s: chunk size %s for %s %s/%s is not one NCCL can use there (at most %llu bytes, "
          "whole grains of %llu); NCCL's own %llu kept, and such calls are counted in statistics",
          formatHexId(c->commId).c_str(), telemetry::describeChunkSize(wanted).c_str(),
          telemetry::collectiveName(collective), telemetry::algorithmName(algo), telemetry::protocolName(proto),
          static_cast<unsigned long long>(chunks.ceilings.of(collective, algo, proto)),
          static_cast<unsigned long long>(policy::chunkGrain(proto)), static_cast<unsigned long long>(ncclOwn));
    } catch (...) {
      // The line is lost; the count stands.
    }
  }
  return ncclSuccess;
}

ncclResult_t tunerFinalize(void* context) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr) return ncclSuccess;
  try {
    if (c->decisions) reportStatistics(*c);
  } catch (...) {
    NCCL_ROCE_WARN(c->logger, kLogTuning, "tuner: writing statistics failed");
  }
  delete c;
  return ncclSuccess;
}

}  // namespace nccl_roce::plugin

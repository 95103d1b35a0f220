#include "plugin/tuner_plugin.h"

#include <unistd.h>

#include <memory>
#include <mutex>
#include <new>
#include <set>

#include "common/env.h"
#include "common/log.h"
#include "plugin/env_plugin.h"
#include "plugin/nccl_logger.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/decision_stats.h"
#include "tuner/nccl_names.h"
#include "tuner/policy_loader.h"

namespace nccl_roce::plugin {

namespace {

using tuner::ActivePolicy;
using tuner::CompiledPolicy;
using tuner::CostTable;
using tuner::Decision;

struct TunerContext {
  uint64_t commId = 0;
  size_t nRanks = 0;
  size_t nNodes = 0;
  std::shared_ptr<const ActivePolicy> active;
  tuner::PolicyAssignment assignment;
  std::unique_ptr<CompiledPolicy> compiled;  // null: NCCL decides everything
  std::unique_ptr<tuner::DecisionStats> stats;
  std::string statsPath;
  bool algoOrProtoRestricted = false;  // NCCL_ALGO / NCCL_PROTO set by the user
  NcclLogger logger;
};

// One WARN per broken policy per process, not one per communicator.
bool firstWarningFor(const ActivePolicy* active) {
  static std::mutex mutex;
  static std::set<const ActivePolicy*> warned;
  std::lock_guard<std::mutex> lock(mutex);
  return warned.insert(active).second;
}

std::string hex(uint64_t value) { return format("0x%016llx", static_cast<unsigned long long>(value)); }

void initContext(TunerContext& c, const Environment& env) {
  c.active = tuner::activePolicyFor(env);
  if (!c.active->error().empty() && firstWarningFor(c.active.get())) {
    NCCL_ROCE_WARN(c.logger, kLogTuning, "tuner: policy '%s' unusable, NCCL decides instead: %s",
                   c.active->requested().c_str(), c.active->error().c_str());
  }
  c.assignment = c.active->assign(c.commId);
  if (c.assignment.policy && !c.assignment.policy->rules.empty()) {
    c.compiled = std::make_unique<CompiledPolicy>(c.assignment.policy, c.nRanks, c.nNodes);
  }
  c.algoOrProtoRestricted = env.get("NCCL_ALGO").has_value() || env.get("NCCL_PROTO").has_value();
  if (auto path = env.get("NCCL_ROCE_STATS"); path && !path->empty()) {
    c.stats = std::make_unique<tuner::DecisionStats>();
    c.statsPath = tuner::statsPathFor(*path, static_cast<long>(::getpid()));
  }
  const tuner::Policy* policy = c.assignment.policy.get();
  NCCL_ROCE_INFO(c.logger, kLogInit | kLogTuning,
                 "tuner: comm %s (%zu ranks, %zu nodes) uses policy '%s' (%s, content %s)%s%s: %zu of %zu rules apply",
                 hex(c.commId).c_str(), c.nRanks, c.nNodes, policy ? policy->name.c_str() : "nccl",
                 policy ? policy->source.c_str() : "-", policy ? hex(policy->contentHash).c_str() : "-",
                 c.assignment.arm.empty() ? "" : ", experiment arm ", c.assignment.arm.c_str(),
                 c.compiled ? c.compiled->applicableRules() : 0, policy ? policy->rules.size() : 0);
}

// Out of line: statistics are optional, and inlining them would tax every call with their register needs.
__attribute__((noinline)) void record(TunerContext& c, int coll, size_t nBytes, const Decision& d,
                                      const CostTable& table) {
  int algorithm = d.algorithm, protocol = d.protocol;
  bool chosen = d.outcome == Decision::Outcome::kChosen;
  if (!chosen && !tuner::ncclDefaultChoice(table, &algorithm, &protocol)) algorithm = protocol = -1;
  bool ruleDecided = chosen || d.outcome == Decision::Outcome::kChannelsOnly;
  c.stats->record(coll, nBytes, algorithm, protocol, ruleDecided ? d.channels : 0,
                  ruleDecided || d.outcome == Decision::Outcome::kUnavailable ? d.rule : -1,
                  d.outcome == Decision::Outcome::kUnavailable);
}

// Statistics are best effort; the decision already stands.
__attribute__((noinline)) void recordQuietly(TunerContext& c, int coll, size_t nBytes, Decision decision,
                                             CostTable table) noexcept {
  try {
    record(c, coll, nBytes, decision, table);
  } catch (...) {
  }
}

}  // namespace

ncclResult_t tunerInit(void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction) noexcept {
  if (context == nullptr) return ncclSuccess;
  *context = nullptr;
  TunerContext* c = new (std::nothrow) TunerContext();
  if (c == nullptr) return ncclSuccess;  // no context: every call leaves NCCL's choice
  c->commId = commId;
  c->nRanks = nRanks;
  c->nNodes = nNodes;
  c->logger.setFunction(logFunction);
  try {
    if (logFunction != nullptr) processEnvPlugin().flushPendingLog(c->logger);
    initContext(*c, processEnvironment());
  } catch (...) {
    c->compiled.reset();
    c->stats.reset();
    NCCL_ROCE_WARN(c->logger, kLogTuning, "tuner: initialisation failed; NCCL decides for comm %s",
                   hex(commId).c_str());
  }
  *context = c;
  return ncclSuccess;
}

// noinline: an entry point NCCL calls through a table; kept whole so benchmarks measure what NCCL runs.
__attribute__((noinline)) ncclResult_t tunerGetCollInfo(void* context, ncclFunc_t collType, size_t nBytes,
                                                        int numPipeOps, float** collCostTable, int numAlgo,
                                                        int numProto, int regBuff, int* nChannels) noexcept {
  auto* c = static_cast<TunerContext*>(context);
  if (c == nullptr || collCostTable == nullptr) return ncclSuccess;
  // NCCL passes a contiguous float[numAlgo][numProto] cast to float**.
  CostTable table{reinterpret_cast<float*>(collCostTable), numAlgo, numProto};  // decide() checks its shape
  Decision decision = c->compiled ? tuner::decide(*c->compiled, {static_cast<int>(collType), nBytes, numPipeOps,
                                                                   regBuff}, table)
                                  : Decision{};
  tuner::applyDecision(decision, table, nChannels);
  if (c->stats) recordQuietly(*c, static_cast<int>(collType), nBytes, decision, table);
  return ncclSuccess;
}

ncclResult_t tunerGetCollInfoWithoutTable(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                          int* algorithm, int* protocol, int* nChannels) noexcept {
  auto* c = static_cast<TunerContext*>(context);
  if (c == nullptr || !c->compiled || c->algoOrProtoRestricted || algorithm == nullptr || protocol == nullptr) {
    return ncclSuccess;
  }
  // What NCCL 2.21 always offers: Ring with LL and Simple, and Tree with them for all-reduce.
  float table[tuner::kMaxAlgorithms * tuner::kNumProtocols];
  for (float& entry : table) entry = -1.0f;
  table[NCCL_ALGO_RING * 3 + NCCL_PROTO_LL] = table[NCCL_ALGO_RING * 3 + NCCL_PROTO_SIMPLE] = 1.0f;
  if (collType == ncclFuncAllReduce) {
    table[NCCL_ALGO_TREE * 3 + NCCL_PROTO_LL] = table[NCCL_ALGO_TREE * 3 + NCCL_PROTO_SIMPLE] = 1.0f;
  }
  CostTable known{table, 6, tuner::kNumProtocols};
  Decision d = tuner::decide(*c->compiled, {static_cast<int>(collType), nBytes, numPipeOps, 0}, known,
                             /*allowWildcards=*/false);
  if (d.outcome == Decision::Outcome::kChosen) {
    *algorithm = d.algorithm;
    *protocol = d.protocol;
  }
  if ((d.outcome == Decision::Outcome::kChosen || d.outcome == Decision::Outcome::kChannelsOnly) && d.channels > 0 &&
      nChannels != nullptr) {
    *nChannels = d.channels;
  }
  return ncclSuccess;
}

ncclResult_t tunerFinalize(void* context) noexcept {
  auto* c = static_cast<TunerContext*>(context);
  if (c == nullptr) return ncclSuccess;
  try {
    if (c->stats) {
      const tuner::Policy* policy = c->assignment.policy.get();
      tuner::DecisionStats::Totals totals = c->stats->totals();
      nlohmann::ordered_json comm;
      comm["comm_id"] = hex(c->commId);
      comm["n_ranks"] = c->nRanks;
      comm["n_nodes"] = c->nNodes;
      comm["policy"] = policy ? policy->name : "nccl";
      comm["policy_source"] = policy ? policy->source : "";
      comm["policy_hash"] = policy ? hex(policy->contentHash) : "";
      comm["arm"] = c->assignment.arm.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c->assignment.arm);
      tuner::Policy none;
      comm.update(c->stats->toJson(policy ? *policy : none));
      Status written = tuner::publishCommunicatorStats(c->statsPath, std::move(comm));
      if (!written.isOk()) {
        NCCL_ROCE_WARN(c->logger, kLogTuning, "tuner: cannot write statistics: %s", written.toString().c_str());
      }
      NCCL_ROCE_INFO(c->logger, kLogTuning,
                     "tuner: comm %s made %llu decisions, %llu by policy rules, %llu with no available preference%s%s",
                     hex(c->commId).c_str(), static_cast<unsigned long long>(totals.calls),
                     static_cast<unsigned long long>(totals.fromRules),
                     static_cast<unsigned long long>(totals.unavailable), written.isOk() ? "; written to " : "",
                     written.isOk() ? c->statsPath.c_str() : "");
    }
  } catch (...) {
    NCCL_ROCE_WARN(c->logger, kLogTuning, "tuner: writing statistics failed");
  }
  delete c;
  return ncclSuccess;
}

}  // namespace nccl_roce::plugin

#include "plugin/tuner_plugin.h"

#include <atomic>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "common/log.h"
#include "common/strings.h"
#include "plugin/communicator_tuner.h"
#include "plugin/process_context.h"
#include "policy/nccl_chunk_limits.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"
#include "tuner/decide.h"

namespace nccl_roce::plugin {

namespace {

using tuner::CallInputs;
using tuner::CompiledPolicy;
using tuner::CostTable;
using tuner::Decision;

}  // namespace

ncclResult_t tunerInit(ProcessContext& process, void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, bool ncclAsksChunkSize, tuner::SelectionRule selection) noexcept {
  if (context == nullptr) return ncclSuccess;
  *context = nullptr;
  auto* c = new (std::nothrow) CommunicatorTuner();
  if (c == nullptr) return ncclSuccess;  // no context: every call leaves NCCL's choice
  c->commId = commId;
  c->nRanks = nRanks;
  c->nNodes = nNodes;
  c->selection = selection;
  c->logger.setFunction(logFunction);
  process.useNcclLogger(logFunction);
  try {
    if (logFunction != nullptr) process.envPlugin().flushPendingLog(c->logger);
    if (!setUpTuner(*c, process, ncclAsksChunkSize)) {
      delete c;
      return ncclInvalidUsage;  // the one deliberate init failure: the operator's pin (docs/rollout.md)
    }
  } catch (...) {
    c->compiled.reset();
    c->switchback.reset();
    c->armMap.reset();
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
                       bool ncclAsksChunkSize, tuner::SelectionRule selection) noexcept {
  ProcessContext* process = processContext();
  if (process == nullptr) {
    if (context != nullptr) *context = nullptr;  // every call leaves NCCL's choice
    return ncclSuccess;
  }
  return tunerInit(*process, context, commId, nRanks, nNodes, logFunction, ncclAsksChunkSize, selection);
}

namespace {

// The chunk size the deciding rule sets for what NCCL will run (algorithm, protocol), kept for getChunkSize; its
// code for statistics. Called only where the policy sets chunk sizes: the other communicators pay nothing for them
// per call. NCCL 2.31+ asks with pipeOps 0 only from its symmetric-kernel path, which either runs a symmetric kernel
// (no getChunkSize) or asks again as an ordinary collective: such a call keeps nothing for getChunkSize.
uint32_t keepChunkSize(CommunicatorTuner& c, const CompiledPolicy* compiled, const CallInputs& call,
                       const Decision& decision, int algorithm, int protocol) {
  if (algorithm < 0) return 0;
  const telemetry::ChunkSize chunk =
      compiled ? tuner::chunkSizeOf(*compiled, decision, protocol) : telemetry::ChunkSize();
  if (call.pipeOps > 0) c.chunks.group.decided(call.collective, algorithm, protocol, chunk);
  return chunk.code();
}

// In a switchback, which arm decided what NCCL will run in this call's size bucket: how the profiler attributes
// the collective's time (telemetry/switchback.h).
void noteArm(CommunicatorTuner& c, const CallInputs& call, const Decision& decision, int algorithm, int protocol,
             int arm) {
  if (algorithm < 0) return;
  c.armMap->note(call.collective, telemetry::sizeBucket(call.bytes), algorithm, protocol,
                 decision.byRule() ? decision.channels : 0, arm);
}

// What a call leaves for later, where the communicator keeps it: the chunk size its rule sets, for getChunkSize, and
// its decision and arm, for statistics. Both read what NCCL runs after the call from its table as it passed it,
// before it is marked; by this NCCL's rule where NCCL chooses (the tie-break differs between lines). Out of line: a
// communicator with neither pays one test per call.
[[gnu::noinline]] void observe(CommunicatorTuner& c, const CompiledPolicy* compiled, const CallInputs& call,
                               const Decision& decision, const CostTable& table, int arm) {
  int algorithm = -1, protocol = -1;
  tuner::cellNcclRuns(decision, table, c.selection, &algorithm, &protocol);
  const uint32_t chunkCode = c.chunks.fromRules ? keepChunkSize(c, compiled, call, decision, algorithm, protocol) : 0;
  if (!c.decisions) return;
  try {
    c.decisions->record(call, decision, algorithm, protocol, chunkCode, arm);
    if (c.armMap) noteArm(c, call, decision, algorithm, protocol, arm);
  } catch (...) {
    // Statistics are best effort; the decision stands.
  }
}

}  // namespace

ncclResult_t tunerGetCollInfo(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr || collCostTable == nullptr) return ncclSuccess;
  // NCCL passes a contiguous float[numAlgo][numProto] cast to float**; decide() checks its shape.
  CostTable table{reinterpret_cast<float*>(collCostTable), numAlgo, numProto};
  CallInputs call{static_cast<int>(collType), nBytes, numPipeOps, regBuff};
  const int arm = c->switchback ? c->switchback->take(table) : -1;  // a switchback's turn: whose rules decide
  const CompiledPolicy* compiled = arm >= 0 ? c->switchback->compiled(arm) : c->compiled.get();
  Decision decision = compiled ? tuner::decide(*compiled, call, table) : Decision{};
  if (c->chunks.fromRules || c->decisions) observe(*c, compiled, call, decision, table, arm);
  tuner::applyDecision(decision, table, nChannels);
  return ncclSuccess;
}

ncclResult_t tunerGetCollInfoWithoutTable(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                          int* algorithm, int* protocol, int* nChannels) noexcept {
  auto* c = static_cast<CommunicatorTuner*>(context);
  if (c == nullptr) return ncclSuccess;
  // No table to tell an unsteerable call by: every call counts in a switchback, whatever this rank does with it.
  const int arm = c->switchback ? c->switchback->take(CostTable{}) : -1;
  if (c->algoOrProtoRestricted || algorithm == nullptr || protocol == nullptr) return ncclSuccess;
  const CompiledPolicy* compiled = arm >= 0 ? c->switchback->compiled(arm) : c->compiled.get();
  if (compiled == nullptr) return ncclSuccess;
  // What NCCL 2.21 always offers: Ring with LL and Simple, and Tree with them for all-reduce.
  float entries[6 * telemetry::kNumProtocols];
  for (float& entry : entries) entry = -1.0f;
  CostTable known{entries, 6, telemetry::kNumProtocols};
  known.at(NCCL_ALGO_RING, NCCL_PROTO_LL) = known.at(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE) = 1.0f;
  if (collType == ncclFuncAllReduce) {
    known.at(NCCL_ALGO_TREE, NCCL_PROTO_LL) = known.at(NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE) = 1.0f;
  }
  Decision d = tuner::decide(*compiled, {static_cast<int>(collType), nBytes, numPipeOps, 0}, known,
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

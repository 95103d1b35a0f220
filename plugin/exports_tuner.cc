// The exported tuner tables: v2 - v7, the versions NCCL releases declare (docs/nccl-versions.md, "Exported
// symbols"). The newest, v7, is the implementation's own signature (plugin/tuner_plugin.cc); every older version is
// a shim adapting its signature to it. NCCL dlsyms its newest version first and falls back (2.32.6: v7, v6, ...;
// 2.30.2 - 2.32.3: v6, ...). Every entry is noexcept; tunerInit builds the process context inside its guard.
#include "plugin/calling_nccl.h"
#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v3.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v7.h"
#include "plugin/tuner_plugin.h"

namespace {

using namespace nccl_roce::plugin;
using nccl_roce::tuner::SelectionRule;

// The selection rule of the releases that load each table (tuner/decide.h): v2 - v5 only NCCL 2.21 - 2.30.1, v7
// only 2.32.6 and later; v6 both lines (2.30.2 - 2.30.7, 2.31.2 - 2.32.3), so it asks the NCCL calling.
constexpr SelectionRule kUpTo230 = SelectionRule::kFirstSmallestAvailable;
constexpr SelectionRule kFrom231 = SelectionRule::kLastPlainMinimum;

// Before v5 NCCL passes no communicator id: every communicator hashes as 0, so an experiment gives the whole
// process one arm (still the same arm on every rank).
ncclResult_t initWithoutCommId(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context) noexcept {
  return tunerInit(context, 0, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/false, kUpTo230);
}

// NCCL's tuning constants are never read or written (2.31 resets them right after init anyway; 2.32 would keep an
// edit), so the NVLink domain and the constants, the only parts of init that differ between v5, v6 and v7, are
// passed over alike.
ncclResult_t initV7(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v7_t* /*nvlDomainInfo*/, ncclTunerConstants_v7_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/true, kFrom231);
}

// v6: v7 with four compute-capability rows in the constants; the same getChunkSize.
ncclResult_t initV6(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v6_t* /*nvlDomainInfo*/, ncclTunerConstants_v6_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/true,
                   selectionRuleOf(callingNcclVersion(logFunction)));
}

// v5: no getChunkSize.
ncclResult_t initV5(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v5_t* /*nvlDomainInfo*/, ncclTunerConstants_v5_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/false, kUpTo230);
}

ncclResult_t getCollInfoV2(void* context, ncclFunc_t collType, size_t nBytes, int /*collNetSupport*/,
                           int /*nvlsSupport*/, int numPipeOps, int* algorithm, int* protocol,
                           int* nChannels) noexcept {
  return tunerGetCollInfoWithoutTable(context, collType, nBytes, numPipeOps, algorithm, protocol, nChannels);
}

ncclResult_t getCollInfoV3(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                           int numAlgo, int numProto, int* nChannels) noexcept {
  return tunerGetCollInfo(context, collType, nBytes, numPipeOps, collCostTable, numAlgo, numProto, 0, nChannels);
}

}  // namespace

// NCCL 2.21.
extern "C" __attribute__((visibility("default")))
const ncclTuner_v2_t ncclTunerPlugin_v2 = {kTunerName, initWithoutCommId, getCollInfoV2, tunerFinalize};

// NCCL 2.22 - 2.23.
extern "C" __attribute__((visibility("default")))
const ncclTuner_v3_t ncclTunerPlugin_v3 = {kTunerName, initWithoutCommId, getCollInfoV3, tunerFinalize};

// NCCL 2.24 - 2.27.
extern "C" __attribute__((visibility("default")))
const ncclTuner_v4_t ncclTunerPlugin_v4 = {kTunerName, initWithoutCommId, tunerGetCollInfo, tunerFinalize};

// NCCL 2.28 - 2.30.1.
extern "C" __attribute__((visibility("default")))
const ncclTuner_v5_t ncclTunerPlugin_v5 = {kTunerName, initV5, tunerGetCollInfo, tunerFinalize};

// NCCL 2.30.2 - 2.32.3 (and a v6-only lookup of any later NCCL). getChunkSize serves the rules' chunk sizes (and
// leaves NCCL's own without any).
extern "C" __attribute__((visibility("default")))
const ncclTuner_v6_t ncclTunerPlugin_v6 = {kTunerName, initV6, tunerGetCollInfo, tunerFinalize, tunerGetChunkSize};

// NCCL 2.32.6 and later (the newest version a release declares).
extern "C" __attribute__((visibility("default")))
const ncclTuner_v7_t ncclTunerPlugin_v7 = {kTunerName, initV7, tunerGetCollInfo, tunerFinalize, tunerGetChunkSize};

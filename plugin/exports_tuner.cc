// The exported tuner tables: v2 - v6, the versions NCCL releases declare (docs/nccl-versions.md, "Exported
// symbols"). Only shims live here: each older version adapts its signature to the one implementation in
// plugin/tuner_plugin.cc. NCCL dlsyms its newest version first and falls back (2.30: v6, v5, ...). v7, which no
// release declares, is compiled only with NCCL_ROCE_UNRELEASED_ABI. Every entry is noexcept; tunerInit builds the
// process context inside its guard.
#include "plugin/nccl/tuner_v2.h"
#include "plugin/nccl/tuner_v3.h"
#include "plugin/nccl/tuner_v4.h"
#include "plugin/nccl/tuner_v6.h"
#include "plugin/tuner_plugin.h"
#ifdef NCCL_ROCE_UNRELEASED_ABI
#include "plugin/nccl/tuner_v7.h"
#endif

namespace {

using namespace nccl_roce::plugin;

// Before v5 NCCL passes no communicator id: every communicator hashes as 0, so an experiment gives the whole
// process one arm (still the same arm on every rank).
ncclResult_t initWithoutCommId(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** context) noexcept {
  return tunerInit(context, 0, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/false);
}

// The constants are never read or edited, so v5 and v6 share the rest. Only v6 has getChunkSize.
ncclResult_t initV6(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v6_t* /*nvlDomainInfo*/, ncclTunerConstants_v6_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/true);
}

ncclResult_t initV5(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v5_t* /*nvlDomainInfo*/, ncclTunerConstants_v5_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/false);
}

#ifdef NCCL_ROCE_UNRELEASED_ABI
// v7 (unreleased): v6 with a fifth compute-capability row in the constants, which are never read.
ncclResult_t initV7(void** context, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v7_t* /*nvlDomainInfo*/, ncclTunerConstants_v7_t* /*constants*/) noexcept {
  return tunerInit(context, commId, nRanks, nNodes, logFunction, /*ncclAsksChunkSize=*/true);
}
#endif

ncclResult_t getCollInfoV2(void* context, ncclFunc_t collType, size_t nBytes, int /*collNetSupport*/,
                           int /*nvlsSupport*/, int numPipeOps, int* algorithm, int* protocol, int* nChannels) noexcept {
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

// NCCL 2.30.2 and later (the newest version a release declares). getChunkSize serves the rules' chunk sizes (and
// leaves NCCL's own without any).
extern "C" __attribute__((visibility("default")))
const ncclTuner_v6_t ncclTunerPlugin_v6 = {kTunerName, initV6, tunerGetCollInfo, tunerFinalize, tunerGetChunkSize};

#ifdef NCCL_ROCE_UNRELEASED_ABI
// No NCCL release declares v7 (plugin/nccl/tuner_v7.h): a build that exports it is never packaged.
extern "C" __attribute__((visibility("default")))
const ncclTuner_v7_t ncclTunerPlugin_v7 = {kTunerName, initV7, tunerGetCollInfo, tunerFinalize, tunerGetChunkSize};
#endif

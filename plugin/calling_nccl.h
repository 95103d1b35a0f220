// Which NCCL release calls the tuner, where its table does not say: NCCL 2.30.2 - 2.32.3 all load
// ncclTunerPlugin_v6, and pick from the cost table by different rules (tuner/decide.h, SelectionRule).
#pragma once

#include "plugin/nccl/common.h"
#include "tuner/decide.h"

namespace nccl_roce::plugin {

// NCCL's version code (23102 for 2.31.2) of the library that holds `logger`, the logger NCCL passes to init: its
// own ncclGetVersion, found through the loaded object that contains the function. 0 when that cannot be told (no
// logger, a logger outside any libnccl).
int callingNcclVersion(ncclDebugLogger_t logger) noexcept;

// The rule of NCCL release `version` (0: unknown, taken as the current releases', 2.31 and later).
tuner::SelectionRule selectionRuleOf(int version) noexcept;

}  // namespace nccl_roce::plugin

// NCCL's example-tuner CSV (plugins/tuner/example, NCCL_TUNER_CONFIG_FILE), accepted wherever a policy file is:
//   collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
// with that format's meaning: -1 is a wildcard (channels -1 keeps NCCL's count, which we pass as 0 — the
// example's "1 channel" default is its bug, not its documented meaning), bounds are inclusive, the first
// matching rule whose choice is available wins. Unlike the example, unknown names and non-numbers are errors.
#pragma once

#include <string>

#include "policy/policy_toml.h"

namespace nccl_roce::policy {

PolicyDocument parseNcclCsv(const std::string& text, const std::string& sourceName);

// Whether a policy file is in this format: by name (.csv, .conf).
bool looksLikeNcclCsv(const std::string& path);

}  // namespace nccl_roce::policy

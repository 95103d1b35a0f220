// `nccl-roce policy explain`: for one call, which rule fires, what NCCL would be told, and what happens when
// that choice is unavailable on the machine (each fallback in order, then NCCL's own choice); for an experiment,
// every arm (written and generated), its share of communicators and what it does with the call.
#pragma once

#include <cstdint>
#include <string>

#include "policy/policy_loader.h"
#include "tuner/decide.h"

namespace nccl_roce::inspect {

struct ExplainRequest {
  uint64_t nRanks = 0;
  uint64_t nNodes = 0;
  uint64_t commId = 0;
  tuner::CallInputs call;
};

std::string explainCall(const policy::ActivePolicy& active, const ExplainRequest& request);

}  // namespace nccl_roce::inspect

// A/B assignment: a stable hash of the communicator id picks an arm by weight. NCCL gives every rank of a
// communicator the same commId, so every rank picks the same arm; nothing random, nothing per rank.
#pragma once

#include <cstdint>

#include "tuner/policy.h"

namespace nccl_roce::tuner {

// 0..99, a pure function of (experiment name, commId).
uint32_t assignmentBucket(const std::string& experimentName, uint64_t commId);
// The arm whose cumulative weight range holds the bucket (weights add up to 100).
const ExperimentArm& armFor(const Experiment& experiment, uint64_t commId);

}  // namespace nccl_roce::tuner

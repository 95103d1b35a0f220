// A/B assignment: a stable hash of the communicator id picks an arm by weight. NCCL gives every rank of a
// communicator the same commId, so every rank picks the same arm; nothing random, nothing per rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tuner/policy.h"

namespace nccl_roce::tuner {

// 0..99, a pure function of (experiment name, commId).
uint32_t assignmentBucket(const std::string& experimentName, uint64_t commId);
// Which of `armCount` generated arms a communicator in the explore share gets: a pure function of (experiment
// name, commId), hashed apart from the bucket, so even a share of a few buckets splits evenly between its arms.
uint32_t exploredArmIndex(const std::string& experimentName, uint64_t commId, size_t armCount);
// The written arm whose cumulative weight range (in file order) holds the bucket; a bucket in the last
// `explore->weight` buckets gets the generated arm exploredArmIndex picks. Weights add up to 100.
const ExperimentArm& armFor(const Experiment& experiment, uint64_t commId);

}  // namespace nccl_roce::tuner

// A/B assignment: a stable hash of the communicator id picks an arm by weight. NCCL gives every rank of a
// communicator the same commId, so every rank picks the same arm; nothing random, nothing per rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "policy/policy.h"
#include "policy/policy_loader.h"

namespace nccl_roce::tuner {

// 0..99, a pure function of (experiment name, commId).
uint32_t assignmentBucket(const std::string& experimentName, uint64_t commId);
// Which of `armCount` generated arms a communicator in the explore share gets: a pure function of (experiment
// name, commId), hashed apart from the bucket, so even a share of a few buckets splits evenly between its arms.
uint32_t exploredArmIndex(const std::string& experimentName, uint64_t commId, size_t armCount);
// The written arm whose cumulative weight range (in file order) holds the bucket; a bucket in the last
// `explore->weight` buckets gets the generated arm exploredArmIndex picks. Weights add up to 100.
const policy::ExperimentArm& armFor(const policy::Experiment& experiment, uint64_t commId);

struct PolicyAssignment {
  std::shared_ptr<const policy::Policy> policy;  // null: NCCL decides
  std::string arm;                               // empty unless an experiment chose it
};
// The policy that decides for the communicator `commId` under `active`: its experiment's arm for that id, or the
// policy itself.
PolicyAssignment assignPolicy(const policy::ActivePolicy& active, uint64_t commId);

}  // namespace nccl_roce::tuner

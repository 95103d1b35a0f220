#include "tuner/experiment.h"

namespace nccl_roce::tuner {

namespace {
// splitmix64's finaliser: every bit of the commId affects the bucket.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

uint32_t assignmentBucket(const std::string& experimentName, uint64_t commId) {
  return static_cast<uint32_t>(mix(commId ^ policy::fnv1a64(experimentName)) % 100);
}

uint32_t exploredArmIndex(const std::string& experimentName, uint64_t commId, size_t armCount) {
  if (armCount == 0) return 0;
  return static_cast<uint32_t>(mix(commId ^ policy::fnv1a64(experimentName + "/explore")) % armCount);
}

const policy::ExperimentArm& armFor(const policy::Experiment& experiment, uint64_t commId) {
  uint32_t bucket = assignmentBucket(experiment.name, commId);
  uint32_t cumulative = 0;
  for (const auto& arm : experiment.arms) {
    cumulative += arm.weight;
    if (bucket < cumulative) return arm;
  }
  // The written arms take the first 100 - explore->weight buckets, so existing assignments stay as they were.
  if (experiment.explore && !experiment.explore->arms.empty()) {
    const std::vector<policy::ExperimentArm>& generated = experiment.explore->arms;
    return generated[exploredArmIndex(experiment.name, commId, generated.size())];
  }
  return experiment.arms.back();  // unreachable when weights add up to 100, which the parser enforces
}

PolicyAssignment assignPolicy(const policy::ActivePolicy& active, uint64_t commId) {
  if (!active.experiment()) return {active.policy(), ""};
  const policy::ExperimentArm& arm = armFor(*active.experiment(), commId);
  return {arm.policy, arm.name};
}

}  // namespace nccl_roce::tuner

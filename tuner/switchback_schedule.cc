#include "tuner/switchback_schedule.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace nccl_roce::tuner {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a well-mixed 64-bit sequence from any seed, the same on every machine.
uint64_t splitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A number below `n` from the sequence (the small modulo bias of n <= 100 does not matter to a shuffle).
uint32_t below(uint64_t& state, uint32_t n) {
  return static_cast<uint32_t>(splitMix(state) % n);
}

}  // namespace

SwitchbackSchedule::SwitchbackSchedule(const policy::Experiment& experiment, uint64_t commId) {
  uint32_t common = 0;
  for (const policy::ExperimentArm& arm : experiment.arms) common = std::gcd(common, arm.weight);
  const uint32_t exploredWeight = experiment.explore ? experiment.explore->weight : 0;
  common = std::gcd(common, exploredWeight);
  for (const policy::ExperimentArm& arm : experiment.arms) {
    for (uint32_t i = 0; common > 0 && i < arm.weight / common; ++i)
      slots_.push_back(static_cast<uint32_t>(arms_.size()));
    arms_.push_back(&arm);
  }
  if (experiment.explore && !experiment.explore->arms.empty()) {
    for (uint32_t i = 0; common > 0 && i < exploredWeight / common; ++i) slots_.push_back(kExploredSlot);
    for (const policy::ExperimentArm& arm : experiment.explore->arms) arms_.push_back(&arm);
    generated_ = static_cast<uint32_t>(experiment.explore->arms.size());
  }
  if (slots_.empty()) slots_.push_back(0);  // weights that give no turn (the parser refuses them): the reference
  // Sized now: a round's shuffle, in NCCL's noexcept getCollInfo, copies into it and allocates nothing.
  order_ = slots_;
  seed_ = policy::fnv1a64(experiment.digest + experiment.name) ^ commId * 0x9e3779b97f4a7c15ull;
}

void SwitchbackSchedule::shuffleRound(uint64_t round) {
  uint64_t state = seed_ ^ (round + 1) * 0xd1b54a32d192ed03ull;
  std::copy(slots_.begin(), slots_.end(), order_.begin());
  for (size_t i = order_.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(order_[i - 1], order_[below(state, static_cast<uint32_t>(i))]);
  }
  const uint32_t firstGenerated = static_cast<uint32_t>(arms_.size()) - generated_;
  for (uint32_t& slot : order_) {
    if (slot == kExploredSlot) slot = firstGenerated + below(state, generated_);
  }
  round_ = round;
}

uint32_t SwitchbackSchedule::armOf(uint64_t turn) {
  const uint64_t round = turn / slots_.size();
  if (round != round_) shuffleRound(round);
  return order_[turn % slots_.size()];
}

}  // namespace nccl_roce::tuner

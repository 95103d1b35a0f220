// Which arm of a switchback experiment holds each turn of one communicator (docs/ab-testing.md, "Switchback
// experiments"): turns come in rounds, and a round holds every written arm as many times as its weight allows
// (the weights over their greatest common divisor) and the explored share's turns, each of which a generated arm
// takes; the round's order is shuffled. Everything is a pure function of the experiment's identity, the
// communicator's id and the turn's number, so every rank computes the same arm for the same turn.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/policy.h"

namespace nccl_roce::tuner {

class SwitchbackSchedule {
 public:
  // `experiment` must outlive the schedule (the loaded policy holds it).
  SwitchbackSchedule(const policy::Experiment& experiment, uint64_t commId);

  // The arms, by index: the written arms in file order, then the generated ones. Index 0 is the reference.
  const std::vector<const policy::ExperimentArm*>& arms() const { return arms_; }
  uint32_t turnsPerRound() const { return static_cast<uint32_t>(slots_.size()); }

  // The index of the arm that holds turn `turn`. Computes a round's order when the turn enters it: turns are asked
  // in increasing order, so that is once a round.
  uint32_t armOf(uint64_t turn);

 private:
  static constexpr uint32_t kExploredSlot = UINT32_MAX;
  void shuffleRound(uint64_t round);

  std::vector<const policy::ExperimentArm*> arms_;
  std::vector<uint32_t> slots_;  // a round's turns before shuffling: arm indices, kExploredSlot for the explored
  uint32_t generated_ = 0;       // explored arms, the last of arms_
  uint64_t seed_ = 0;            // the experiment's identity and the communicator's id
  uint64_t round_ = UINT64_MAX;  // whose order `order_` holds
  std::vector<uint32_t> order_;  // the current round's turns, shuffled; as long as slots_ from construction
};

}  // namespace nccl_roce::tuner

// A switchback communicator's turns (docs/ab-testing.md, "Switchback experiments"): which arm decides each of its
// getCollInfo calls. The calls are counted as NCCL makes them, one per aggregated collective in the order every
// rank enqueues them, and turn t holds calls t x block .. (t + 1) x block - 1; its arm comes from the
// communicator's SwitchbackSchedule. A call whose cost table offers nothing (NCCL 2.31's query for a symmetric
// kernel, where every entry is -1) cannot be steered and is no turn's: it neither counts nor changes the arm.
// Not thread-safe: NCCL serialises a communicator's tuner calls.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "telemetry/switchback.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::tuner {

class SwitchbackTurns {
 public:
  // `compiled`: each arm's lookup for this communicator's shape, by arm index (null: the arm leaves NCCL's choice).
  SwitchbackTurns(const policy::Experiment& experiment, uint64_t commId,
                  std::vector<std::shared_ptr<const CompiledPolicy>> compiled);

  // The arm that decides this call, advancing the count.
  int take(const CostTable& table);
  // The arm's lookup; null where NCCL decides.
  const CompiledPolicy* compiled(int arm) const { return compiled_[static_cast<size_t>(arm)].get(); }
  const SwitchbackSchedule& schedule() const { return schedule_; }
  uint32_t block() const { return block_; }
  uint64_t callsCounted() const { return counted_; }
  // The count as the profiler reads it, at capture (telemetry/switchback.h): stored after every counted call.
  std::shared_ptr<const telemetry::CountedCalls> countedCalls() const { return published_; }

 private:
  SwitchbackSchedule schedule_;
  std::vector<std::shared_ptr<const CompiledPolicy>> compiled_;
  const uint32_t block_;
  uint64_t counted_ = 0;  // calls that took a turn's place
  int arm_ = 0;
  std::shared_ptr<telemetry::CountedCalls> published_;
};

}  // namespace nccl_roce::tuner

#include "tuner/switchback_turns.h"

#include <algorithm>
#include <utility>

namespace nccl_roce::tuner {

namespace {

bool offersSomething(const CostTable& table) {
  if (!table.valid()) return true;  // no table (tuner v2): every call counts
  for (int i = 0; i < table.numAlgo * table.numProto; ++i) {
    if (isAvailable(table.entries[i])) return true;
  }
  return false;
}

}  // namespace

SwitchbackTurns::SwitchbackTurns(const policy::Experiment& experiment, uint64_t commId,
                                 std::vector<std::shared_ptr<const CompiledPolicy>> compiled)
    : schedule_(experiment, commId),
      compiled_(std::move(compiled)),
      block_(std::max<uint32_t>(experiment.switchback.block, 1)),
      published_(std::make_shared<telemetry::CountedCalls>()) {
  compiled_.resize(schedule_.arms().size());
}

int SwitchbackTurns::take(const CostTable& table) {
  if (!offersSomething(table)) return arm_;
  if (counted_ % block_ == 0) arm_ = static_cast<int>(schedule_.armOf(counted_ / block_));
  published_->store(++counted_);
  return arm_;
}

}  // namespace nccl_roce::tuner

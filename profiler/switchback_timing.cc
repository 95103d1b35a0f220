#include "profiler/switchback_timing.h"

#include <algorithm>
#include <utility>

namespace nccl_roce::profiler {

SwitchbackTiming::SwitchbackTiming(std::shared_ptr<const telemetry::SwitchbackPlan> plan) : plan_(std::move(plan)) {
  index_.fill(-1);
  lastArm_.fill(-1);
  referencePair_.fill(-1);
}

SwitchbackTiming::Pair* SwitchbackTiming::pairFor(int cell, int arm) {
  const uint32_t key = static_cast<uint32_t>(cell) << 8 | static_cast<uint32_t>(arm);
  for (uint32_t probe = key * 2654435761u % kIndexSize;; probe = (probe + 1) % kIndexSize) {
    int16_t at = index_[probe];
    if (at >= 0 && pairs_[static_cast<size_t>(at)].cell == cell && pairs_[static_cast<size_t>(at)].arm == arm) {
      return &pairs_[static_cast<size_t>(at)];
    }
    if (at >= 0) continue;
    if (used_ == kMaxPairs) return nullptr;
    Pair& fresh = pairs_[static_cast<size_t>(used_)];
    fresh.cell = static_cast<int16_t>(cell);
    fresh.arm = static_cast<int16_t>(arm);
    index_[probe] = static_cast<int16_t>(used_);
    if (arm == 0) referencePair_[static_cast<size_t>(cell)] = static_cast<int16_t>(used_);
    ++used_;
    return &fresh;
  }
}

void SwitchbackTiming::record(int collective, int bucket, int arm, int bin) {
  if (arm < 0 || !telemetry::isCell(collective, bucket)) {
    ++unattributed_;  // no single arm decided what it ran (an A/A), or nothing we time
    return;
  }
  const int cell = telemetry::cellIndex(collective, bucket);
  Pair* pair = pairFor(cell, arm);
  if (pair == nullptr) {
    ++unattributed_;
    return;
  }
  if (lastArm_[static_cast<size_t>(cell)] != arm) {  // a change of arm, or the cell's first collective
    lastArm_[static_cast<size_t>(cell)] = static_cast<int16_t>(arm);
    washoutLeft_[static_cast<size_t>(cell)] = plan_->washout;
  }
  if (washoutLeft_[static_cast<size_t>(cell)] > 0) {
    --washoutLeft_[static_cast<size_t>(cell)];
    ++pair->washedOut;
    return;
  }
  ++pair->count;
  pair->binSum += static_cast<uint64_t>(bin);
  if (pair->latest.window != static_cast<uint32_t>(windowsClosed_)) startWindow(*pair);
  ++pair->latest.count;
  pair->latest.binSum += static_cast<uint64_t>(bin);
  if (++inWindow_ >= plan_->window) {  // the window closes: its pairs are paired when they next time one
    inWindow_ = 0;
    ++windowsClosed_;
  }
}

const SwitchbackTiming::WindowSums* SwitchbackTiming::referenceWindow(const Pair* reference, uint32_t window) {
  if (reference == nullptr) return nullptr;
  if (reference->latest.window == window && reference->latest.count > 0) return &reference->latest;
  const WindowSums& kept = reference->referenceOf[window % kKeptWindows];
  return kept.window == window && kept.count > 0 ? &kept : nullptr;
}

// Each arm's mean bin in a window where the reference arm ran too, minus the reference's: one paired difference.
void SwitchbackTiming::addDifference(Pair& arm, const WindowSums& reference) {
  const double d = static_cast<double>(arm.latest.binSum) / static_cast<double>(arm.latest.count) -
                   static_cast<double>(reference.binSum) / static_cast<double>(reference.count);
  ++arm.windows;
  arm.diffSum += d;
  arm.diffSumSq += d * d;
}

void SwitchbackTiming::startWindow(Pair& p) {
  if (p.latest.count > 0) {
    if (p.arm == 0) {
      p.referenceOf[p.latest.window % kKeptWindows] = p.latest;
    } else {
      const int16_t ref = referencePair_[static_cast<size_t>(p.cell)];
      const WindowSums* r = referenceWindow(ref < 0 ? nullptr : &pairs_[static_cast<size_t>(ref)], p.latest.window);
      if (r != nullptr) addDifference(p, *r);
    }
  }
  p.latest = WindowSums{static_cast<uint32_t>(windowsClosed_), 0, 0};
}

void SwitchbackTiming::copyPairs(int from, int n, std::vector<Pair>* out) const {
  for (int i = from; i < std::min(from + n, used_); ++i) out->push_back(pairs_[static_cast<size_t>(i)]);
}

telemetry::SwitchbackTimings SwitchbackTiming::timingsOf(const telemetry::SwitchbackPlan& plan,
                                                         const std::vector<Pair>& pairs, uint64_t windowsClosed,
                                                         uint64_t unattributed) {
  telemetry::SwitchbackTimings t;
  t.arms = plan.arms;
  t.block = plan.block;
  t.washout = plan.washout;
  t.window = plan.window;
  t.turnsPerRound = plan.turnsPerRound;
  t.windowsClosed = windowsClosed;
  t.unattributed = unattributed;
  std::vector<const Pair*> reference(telemetry::kNumCells, nullptr);
  for (const Pair& p : pairs) {
    if (p.arm == 0 && p.cell >= 0) reference[static_cast<size_t>(p.cell)] = &p;
  }
  for (Pair p : pairs) {
    // A closed window the pair has not yet paired: paired here, on this copy, as it will be when it next times one.
    const WindowSums* r =
        p.arm != 0 && p.cell >= 0 && p.latest.count > 0 && p.latest.window != static_cast<uint32_t>(windowsClosed)
            ? referenceWindow(reference[static_cast<size_t>(p.cell)], p.latest.window)
            : nullptr;
    if (r != nullptr) addDifference(p, *r);
    t.cells.push_back({telemetry::collectiveOfCell(p.cell), telemetry::bucketOfCell(p.cell), p.arm, p.count, p.binSum,
                       p.washedOut, p.windows, p.diffSum, p.diffSumSq});
  }
  std::sort(t.cells.begin(), t.cells.end(), [](const telemetry::SwitchbackCell& a, const telemetry::SwitchbackCell& b) {
    return std::tie(a.collective, a.bucket, a.arm) < std::tie(b.collective, b.bucket, b.arm);
  });
  return t;
}

}  // namespace nccl_roce::profiler

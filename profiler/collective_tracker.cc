#include "profiler/collective_tracker.h"

#include <algorithm>
#include <thread>

#include "tuner/decision_stats.h"

namespace nccl_roce::profiler {

namespace {

constexpr int kMaskChannels = 64;  // channels a round can track; NCCL's MAXCHANNELS

}  // namespace

CollectiveTracker::Lock::Lock(std::atomic_flag& flag) : flag_(flag) {
  while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
}
CollectiveTracker::Lock::~Lock() { flag_.clear(std::memory_order_release); }

CollectiveTracker::CollectiveTracker(const Config& config)
    : config_(config), slots_(std::max(1u, std::min(config.slots, EventHandle::kMaxSlots))) {
  records_.reset(new Record[slots_]);
  for (uint32_t i = 0; i < slots_; ++i) records_[i].generation = config.firstGeneration;
}

size_t CollectiveTracker::bytesFor(uint32_t slots) { return sizeof(CollectiveTracker) + slots * sizeof(Record); }

void* CollectiveTracker::startGroup() {
  uint32_t number = groups_.fetch_add(1, std::memory_order_relaxed) + 1;
  return EventHandle{HandleKind::kGroup, config_.index, 0, 0, number}.encode();
}

uint32_t CollectiveTracker::allocate() {
  // Oldest first, past sticky records; with at most three quarters sticky, a free one is near.
  for (uint32_t tries = 0; tries < slots_; ++tries) {
    uint32_t slot = nextRecord_;
    nextRecord_ = nextRecord_ + 1 == slots_ ? 0 : nextRecord_ + 1;
    if (!records_[slot].sticky) return slot;
  }
  return nextRecord_;  // unreachable while sticky_ is capped
}

void CollectiveTracker::joinGroup(const void* group, uint32_t slot) {
  if (group == nullptr || group != group_) {
    group_ = group;
    groupSize_ = 1;
    groupFirstSlot_ = slot;
    groupFirstGeneration_ = records_[slot].generation;
    return;
  }
  // A second collective in one kernel plan: they share the kernel, so all of them are timed as a batch.
  if (++groupSize_ == 2) {
    Record& first = records_[groupFirstSlot_];
    if (first.generation == groupFirstGeneration_) markBatched(first);
  }
  markBatched(records_[slot]);
}

void CollectiveTracker::markBatched(Record& r) {
  if (r.key.source != TimingSource::kKernelGpu) return;
  r.key.source = TimingSource::kKernelGpuBatch;
  r.histogram = table_.histogramFor(r.key);
}

void* CollectiveTracker::startCollective(const CollectiveInfo& info, const void* group) {
  if (info.collective < 0) return nullptr;  // NCCL reads nullptr as "no event" and sends no children
  Lock lock(busy_);
  uint32_t slot = allocate();
  Record& r = records_[slot];
  uint32_t generation = (r.generation + 1) & EventHandle::kGenerationMask;
  r = Record();
  r.generation = generation;
  r.live = true;
  r.key.collective = static_cast<int8_t>(info.collective);
  r.key.bucket = static_cast<uint8_t>(tuner::sizeBucket(info.bytes));
  r.key.algorithm = static_cast<int8_t>(info.algorithm);
  r.key.protocol = static_cast<int8_t>(info.protocol);
  r.key.channels = static_cast<uint8_t>(info.channels);
  r.key.source = config_.source;
  r.expected = static_cast<uint8_t>(info.channels > 0 ? std::min(info.channels, kMaskChannels) : 1);
  r.histogram = table_.histogramFor(r.key);
  joinGroup(group, slot);
  return EventHandle{HandleKind::kCollective, config_.index, slot, 0, generation}.encode();
}

CollectiveTracker::Record* CollectiveTracker::find(const EventHandle& h) {
  if (h.tracker != config_.index || h.slot >= slots_) return nullptr;
  Record& r = records_[h.slot];
  return r.live && r.generation == h.generation ? &r : nullptr;
}

void* CollectiveTracker::startChannel(const void* parent, uint32_t channel, uint64_t stampNs) {
  // A null parent is a kernel NCCL runs for something we do not time (send/receive, a collective we left
  // untimed): not an error.
  if (parent == nullptr) return nullptr;
  std::optional<EventHandle> h = EventHandle::decode(parent);
  Lock lock(busy_);
  Record* r = h && h->kind == HandleKind::kCollective ? find(*h) : nullptr;
  if (r == nullptr) {
    table_.drop(Drop::kMissingParent);
    return nullptr;
  }
  if (channel >= kMaskChannels) {
    table_.drop(Drop::kUnknownEvent);
    return nullptr;
  }
  uint64_t bit = uint64_t{1} << channel;
  if (r->started & bit) {  // the channel starts again before the round ended: that round lost events
    table_.drop(Drop::kIncomplete);
    r->started = r->stopped = 0;
    r->channelsStopped = 0;
  }
  if (r->started == 0) {  // a new round
    if (r->completedOnce && !r->sticky && sticky_ < slots_ / 4 * 3) {
      r->sticky = true;  // a second round without a new Coll event: a CUDA graph replays it
      ++sticky_;
    }
    r->firstStart = stampNs;
    r->lastStop = 0;
  }
  r->started |= bit;
  if (stampNs < r->firstStart) r->firstStart = stampNs;
  return EventHandle{HandleKind::kChannel, config_.index, h->slot, channel, h->generation}.encode();
}

void CollectiveTracker::stopChannel(const void* channelHandle, uint64_t stampNs) {
  std::optional<EventHandle> h = EventHandle::decode(channelHandle);
  Lock lock(busy_);
  Record* r = h && h->kind == HandleKind::kChannel ? find(*h) : nullptr;
  if (r == nullptr) {
    table_.drop(Drop::kMissingParent);
    return;
  }
  uint64_t bit = uint64_t{1} << h->channel;
  if (!(r->started & bit) || (r->stopped & bit)) {
    table_.drop(Drop::kStopWithoutStart);
    return;
  }
  if (stampNs < r->firstStart) {
    table_.drop(Drop::kStopBeforeStart);
    r->started = r->stopped = 0;  // the round is lost; the next starts afresh
    r->channelsStopped = 0;
    return;
  }
  r->stopped |= bit;
  ++r->channelsStopped;
  if (stampNs > r->lastStop) r->lastStop = stampNs;
  if (r->channelsStopped >= r->expected) finishRound(*r);
}

void CollectiveTracker::finishRound(Record& r) {
  table_.record(r.histogram, r.lastStop - r.firstStart);
  r.started = r.stopped = 0;
  r.channelsStopped = 0;
  r.completedOnce = true;
}

void CollectiveTracker::dropEvent(Drop why) {
  Lock lock(busy_);
  table_.drop(why);
}

std::vector<TimingTable::Entry> CollectiveTracker::entries() const {
  Lock lock(busy_);
  return table_.entries();
}

uint64_t CollectiveTracker::dropped(Drop why) const {
  Lock lock(busy_);
  return table_.dropped(why);
}

}  // namespace nccl_roce::profiler

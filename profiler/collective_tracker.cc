#include "profiler/collective_tracker.h"

#include <algorithm>
#include <thread>

#include "tuner/size_bucket.h"

namespace nccl_roce::profiler {

namespace {

uint32_t powerOfTwoAtLeast(uint32_t n) {
  uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

uint64_t collectiveKey(const CollectiveInfo& info) {
  if (info.collective < 0) return 0;
  TimingKey key;
  key.collective = static_cast<int8_t>(info.collective);
  key.bucket = static_cast<uint8_t>(tuner::sizeBucket(info.bytes));
  key.algorithm = static_cast<int8_t>(info.algorithm);
  key.protocol = static_cast<int8_t>(info.protocol);
  key.channels = static_cast<uint8_t>(info.channels);
  return key.packed();
}

CollectiveTracker::Lock::Lock(std::atomic_flag& flag) : flag_(flag) {
  while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
}

CollectiveTracker::CollectiveTracker(const Config& config)
    : config_(config),
      slots_(powerOfTwoAtLeast(std::min(config.slots, EventHandle::kMaxSlots))),
      slotMask_(slots_ - 1),
      maxSticky_(slots_ / 4 * 3),
      sourceBits_(uint64_t{static_cast<uint8_t>(config.source)} << TimingKey::kSourceShift),
      groupBase_(EventHandle::base(HandleKind::kGroup, config.index)),
      collectiveBase_(EventHandle::base(HandleKind::kCollective, config.index)),
      collectiveOwner_(EventHandle::ownerOf(HandleKind::kCollective, config.index)),
      channelOwner_(EventHandle::ownerOf(HandleKind::kChannel, config.index)) {
  records_.reset(new Record[slots_]);
  for (uint32_t i = 0; i < slots_; ++i) {
    records_[i].generation = config.firstGeneration & EventHandle::kGenerationMask;  // no handle carries it
  }
}

size_t CollectiveTracker::bytesFor(uint32_t slots) { return sizeof(CollectiveTracker) + slots * sizeof(Record); }

void* CollectiveTracker::startCollective(uint64_t key, const void* group) {
  if (key == 0) return nullptr;  // NCCL reads nullptr as "no event" and sends no children
  key |= sourceBits_;
  Lock lock(busy_);
  uint32_t slot = allocate();
  EventHandle h = beginCollective(slot, table_.indexOf(key), key);
  if (group != nullptr && group == group_) {
    joinBatch(slot);
  } else {
    beginGroup(group, h);
  }
  return h.pointer();
}

uint32_t CollectiveTracker::allocate() {
  // Oldest first, past sticky records; with at most three quarters sticky, a free one is near.
  uint32_t slot = nextRecord_;
  for (uint32_t tries = 1; tries < slots_ && records_[slot].sticky; ++tries) slot = (slot + 1) & slotMask_;
  nextRecord_ = (slot + 1) & slotMask_;
  return slot;
}

void CollectiveTracker::joinBatch(uint32_t slot) {
  // A second collective in one kernel plan: they share the kernel, so all of them are timed as a batch. The
  // first is marked with the second (marking is done once: a batch key is left as it is).
  if (Record* first = find(groupFirst_, collectiveOwner_)) markBatched(*first);
  markBatched(records_[slot]);
}

void CollectiveTracker::markBatched(Record& r) {
  if (r.key == TimingTable::kNoKey) return;  // too many keys: dropped whatever its source
  uint64_t key = table_.packedAt(r.key);
  if (TimingKey::unpack(key).source != TimingSource::kKernelGpu) return;
  r.key = table_.indexOf(key | uint64_t{static_cast<uint8_t>(TimingSource::kKernelGpuBatch)} << TimingKey::kSourceShift);
}

void* CollectiveTracker::startChannel(const void* parent, uint32_t channel, uint64_t stampNs) {
  Lock lock(busy_);
  return channelStarted(parent, channel, stampNs);
}

void CollectiveTracker::stopChannel(const void* channelHandle, uint64_t stampNs) {
  Lock lock(busy_);
  channelStopped(EventHandle(channelHandle), stampNs);
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

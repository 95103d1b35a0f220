// CollectiveTracker's inline part: the try versions of its events and what they share with the general ones
// (see collective_tracker.h for why). Included by that header only; the rest is in collective_tracker.cc.
#pragma once

#include "common/inline.h"
#include "profiler/collective_tracker.h"

namespace nccl_roce::profiler {

NCCL_ROCE_ALWAYS_INLINE void* CollectiveTracker::startGroup() {
  uint32_t number = groups_.fetch_add(1, std::memory_order_relaxed) + 1;
  return groupBase_.at(0, number & EventHandle::kGenerationMask).pointer();
}

NCCL_ROCE_ALWAYS_INLINE bool CollectiveTracker::tryStartCollective(uint64_t key, const void* group, void*& handle) {
  if (key == 0) {
    handle = nullptr;  // NCCL reads nullptr as "no event" and sends no children
    return true;
  }
  key |= sourceBits_;
  // The key table's keys, the next record and the group are the user's thread's alone: read without the lock.
  uint8_t keyIndex = table_.find(key);
  if (keyIndex == TimingTable::kNoKey || (group != nullptr && group == group_)) return false;
  uint32_t slot = nextRecord_;
  if (!tryLock()) return false;
  if (records_[slot].sticky) {  // set by the proxy thread
    unlock();
    return false;
  }
  EventHandle h = beginCollective(slot, keyIndex, key);
  unlock();
  nextRecord_ = (slot + 1) & slotMask_;
  beginGroup(group, h);
  handle = h.pointer();
  return true;
}

// Only what a new collective reads before its first round (no round has run: lastStop 0); the round's start is
// set when it starts.
NCCL_ROCE_ALWAYS_INLINE EventHandle CollectiveTracker::beginCollective(uint32_t slot, uint8_t keyIndex, uint64_t key) {
  Record& r = records_[slot];
  uint32_t generation = (r.generation + 1) & EventHandle::kGenerationMask;
  auto channels = static_cast<uint8_t>(key >> TimingKey::kChannelsShift);
  r.started = r.stopped = 0;
  r.lastStop = 0;
  r.generation = generation;
  r.key = keyIndex;
  r.expected = channels < kMaskChannels ? channels : kMaskChannels;
  r.channelsStopped = 0;
  return collectiveBase_.at(slot, generation);
}

NCCL_ROCE_ALWAYS_INLINE void CollectiveTracker::beginGroup(const void* group, EventHandle first) {
  group_ = group;
  groupFirst_ = first;
}

NCCL_ROCE_ALWAYS_INLINE CollectiveTracker::Record* CollectiveTracker::find(EventHandle h, uint32_t owner) {
  if (h.owner() != owner) return nullptr;
  Record& r = records_[h.slotWithin(slotMask_)];
  return r.generation == h.generation() ? &r : nullptr;
}

NCCL_ROCE_ALWAYS_INLINE bool CollectiveTracker::tryStartChannel(const void* parent, uint32_t channel,
                                                                uint64_t stampNs, void*& handle) {
  if (!tryLock()) return false;
  handle = channelStarted(parent, channel, stampNs);
  unlock();
  return true;
}

NCCL_ROCE_ALWAYS_INLINE void* CollectiveTracker::channelStarted(const void* parent, uint32_t channel,
                                                               uint64_t stampNs) {
  // A null parent is a kernel NCCL runs for something we do not time (send/receive, a collective we left
  // untimed): not an error.
  if (parent == nullptr) return nullptr;
  EventHandle h(parent);
  Record* r = find(h, collectiveOwner_);
  if (r == nullptr || channel >= kMaskChannels) {
    table_.drop(r == nullptr ? Drop::kMissingParent : Drop::kUnknownEvent);
    return nullptr;
  }
  uint64_t bit = uint64_t{1} << channel;
  if (r->started & bit) {  // the channel starts again before the round ended: that round lost events
    table_.drop(Drop::kIncomplete);
    r->started = r->stopped = 0;
    r->channelsStopped = 0;
  }
  if (r->started == 0) {  // a new round
    if (r->lastStop != 0 && !r->sticky && sticky_ < maxSticky_) {
      r->sticky = true;  // a second round without a new Coll event: a CUDA graph replays it
      ++sticky_;
    }
    r->firstStart = stampNs;
    r->lastStop = 0;
  }
  r->started |= bit;
  if (stampNs < r->firstStart) r->firstStart = stampNs;
  return h.channelOf(channel).pointer();
}

NCCL_ROCE_ALWAYS_INLINE bool CollectiveTracker::tryStopChannel(const void* channelHandle, uint64_t stampNs) {
  if (!tryLock()) return false;
  channelStopped(EventHandle(channelHandle), stampNs);
  unlock();
  return true;
}

NCCL_ROCE_ALWAYS_INLINE void CollectiveTracker::channelStopped(EventHandle h, uint64_t stampNs) {
  Record* r = find(h, channelOwner_);
  if (r == nullptr) {
    table_.drop(Drop::kMissingParent);
    return;
  }
  uint32_t channel = h.channel() % kMaskChannels;  // ours are below 64; the rest match no bit
  // Started in this round and not stopped yet (stopped bits are a subset of started ones).
  if (((r->started ^ r->stopped) >> channel & 1) == 0) {
    table_.drop(Drop::kStopWithoutStart);
    return;
  }
  if (stampNs < r->firstStart) {
    table_.drop(Drop::kStopBeforeStart);
    r->started = r->stopped = 0;  // the round is lost; the next starts afresh
    r->channelsStopped = 0;
    return;
  }
  r->stopped |= uint64_t{1} << channel;
  if (stampNs > r->lastStop) r->lastStop = stampNs;
  if (++r->channelsStopped >= r->expected) finishRound(*r);
}

NCCL_ROCE_ALWAYS_INLINE void CollectiveTracker::finishRound(Record& r) {
  table_.record(r.key, r.lastStop - r.firstStart);
  r.started = r.stopped = 0;
  r.channelsStopped = 0;  // lastStop stays: the next round start sees that a round has run
}

}  // namespace nccl_roce::profiler

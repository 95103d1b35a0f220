#include "profiler/collective_tracker.h"

#include <algorithm>
#include <new>

namespace nccl_roce::profiler {

namespace {

uint32_t powerOfTwoAtLeast(uint32_t n) {
  uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

CollectiveTracker::CollectiveTracker(const Config& config)
    : config_(config),
      records_(new Record[powerOfTwoAtLeast(std::clamp(config.slots, 1u, EventHandle::kMaxSlots))]),
      slots_(powerOfTwoAtLeast(std::clamp(config.slots, 1u, EventHandle::kMaxSlots))),
      names_(config.nRanks) {
  for (uint32_t i = 0; i < slots_; ++i) records_[i].generation = config.firstGeneration & EventHandle::kGenerationMask;
}

size_t CollectiveTracker::bytesFor(uint32_t slots) {
  return sizeof(CollectiveTracker) + slots * sizeof(Record);
}

void* CollectiveTracker::startGroup() {
  EventHandle h;
  h.kind = HandleKind::kGroup;
  h.tracker = config_.index;
  h.generation = groups_.fetch_add(1, std::memory_order_relaxed) + 1;
  return h.pointer();
}

void* CollectiveTracker::startCollective(const CollEvent& coll) {
  std::lock_guard<SpinLock> lock(lock_);
  // A replay of a collective captured in this switchback runs what its first replay ran: its key and arm are known.
  const int captured = capture_ ? captureSlotOf(coll.parent) : -1;
  TimingTable::Entry* entry = captured >= 0 ? capture_->replayedEntry(captured) : nullptr;
  int16_t switchback = entry != nullptr ? static_cast<int16_t>(kCaptureBase + captured) : int16_t{-1};
  if (entry == nullptr) {
    const CollShape& shape = names_.lookup(coll.func, coll.datatype, coll.algo, coll.proto);
    if (!shape.timed()) return nullptr;
    entry = table_.entryFor(shape.keyOf(coll.count, coll.channels, config_.source));
    if (switchback_ && entry != nullptr) switchback = switchbackOf(*entry, captured);
  }
  uint32_t slot = nextRecord_;
  nextRecord_ = (nextRecord_ + 1) % slots_;
  Record& r = records_[slot];
  uint32_t generation = (r.generation + 1) & EventHandle::kGenerationMask;  // past every handle of its last use
  r = Record{};
  r.generation = generation;
  r.entry = entry;
  r.channels = static_cast<uint8_t>(std::clamp<int>(coll.channels, 1, kMaskChannels));
  r.stopsLeft = r.channels;
  r.switchback = switchback;
  EventHandle h;
  h.kind = HandleKind::kCollective;
  h.tracker = config_.index;
  h.slot = slot;
  h.generation = r.generation;
  if (coll.group != nullptr && coll.group == group_) {
    // A second collective in one kernel plan: they share the kernel, so all of them are timed as a batch.
    if (Record* first = recordOf(groupFirst_, HandleKind::kCollective)) markBatched(*first);
    markBatched(r);
  } else {
    group_ = coll.group;
    groupFirst_ = h;
  }
  return h.pointer();
}

int CollectiveTracker::captureSlotOf(const void* parent) const {
  const EventHandle p = EventHandle::of(parent);
  if (!capture_ || p.kind != HandleKind::kCapture || p.tracker != config_.index || p.generation != captureGeneration())
    return -1;  // eager (or captures not told apart)
  return static_cast<int>(p.slot);
}

int16_t CollectiveTracker::switchbackOf(TimingTable::Entry& entry, int captured) {
  const int arm = switchback_->armOf(entry.key);
  if (captured < 0) return static_cast<int16_t>(arm);  // eager: the windows'
  // A replay: timed for its captured collective, when it ran the arm that collective's capture turn decided.
  return capture_->replay(captured, telemetry::cellIndex(entry.key.collective, entry.key.bucket), arm, &entry)
             ? static_cast<int16_t>(kCaptureBase + captured)
             : static_cast<int16_t>(telemetry::ArmMap::kShared);
}

void* CollectiveTracker::startCapture(const CaptureEvent& capture) {
  std::unique_ptr<CaptureTiming::Chunk> chunk;  // freed, if another capture added one first, after the lock below
  {
    std::lock_guard<SpinLock> lock(lock_);
    if (!capture_) return nullptr;
    if (!capture_->needsChunk()) return captureLocked(capture);
  }
  chunk.reset(new (std::nothrow) CaptureTiming::Chunk());  // on the capturing thread, outside the lock
  std::lock_guard<SpinLock> lock(lock_);
  if (capture_->needsChunk()) capture_->addChunk(std::move(chunk));
  return captureLocked(capture);
}

void* CollectiveTracker::captureLocked(const CaptureEvent& capture) {
  const CollShape& shape = names_.lookup(capture.func, capture.datatype, "", "");
  if (!shape.timed()) return nullptr;
  const telemetry::CellKey key = shape.keyOf(capture.count, 0, config_.source);
  EventHandle h;
  h.kind = HandleKind::kCapture;
  h.tracker = config_.index;
  h.generation = captureGeneration();
  // Past the slots kept, the handle names none: its replays are told from eager collectives, and left untimed.
  const int slot = capture_->capture(telemetry::cellIndex(key.collective, key.bucket),
                                     capture.count * shape.elementBytes, switchback_->plan()->calls->load());
  h.slot = slot >= 0 ? static_cast<uint32_t>(slot) : EventHandle::kMaxSlots - 1;
  return h.pointer();
}

void CollectiveTracker::markBatched(Record& r) {
  if (r.entry == nullptr || r.entry->key.source != telemetry::TimingSource::kKernelGpu)
    return;  // untimed, or marked already
  telemetry::CellKey batch = r.entry->key;
  batch.source = telemetry::TimingSource::kKernelGpuBatch;
  r.entry = table_.entryFor(batch);
}

CollectiveTracker::Record* CollectiveTracker::recordOf(const EventHandle& h, HandleKind kind) {
  if (h.kind != kind || h.tracker != config_.index || h.slot >= slots_) return nullptr;
  Record& r = records_[h.slot];
  return r.generation == h.generation ? &r : nullptr;
}

void* CollectiveTracker::startChannel(const void* parent, uint32_t channel, uint64_t stampNs) {
  // A null parent is a kernel NCCL runs for something we do not time (send/receive, a collective we left
  // untimed): not an error.
  if (parent == nullptr) return nullptr;
  std::lock_guard<SpinLock> lock(lock_);
  EventHandle h = EventHandle::of(parent);
  Record* r = recordOf(h, HandleKind::kCollective);
  if (r == nullptr || channel >= kMaskChannels) {
    table_.drop(Drop::kMissingParent);
    return nullptr;
  }
  uint64_t bit = uint64_t{1} << channel;
  if (r->started & bit) {  // the channel starts again before its round ended: that round lost events
    table_.drop(Drop::kIncomplete);
    r->started = r->stopped = 0;
  }
  if (r->started == 0) {  // a new round
    r->firstStart = stampNs;
    r->stopsLeft = r->channels;
  }
  r->started |= bit;
  r->firstStart = std::min(r->firstStart, stampNs);
  h.kind = HandleKind::kChannel;
  h.channel = channel;
  return h.pointer();
}

void CollectiveTracker::stopChannel(const void* channelHandle, uint64_t stampNs) {
  std::lock_guard<SpinLock> lock(lock_);
  EventHandle h = EventHandle::of(channelHandle);
  Record* r = recordOf(h, HandleKind::kChannel);
  if (r == nullptr || h.channel >= kMaskChannels) {
    table_.drop(Drop::kMissingParent);
    return;
  }
  uint64_t bit = uint64_t{1} << h.channel;
  if (!(r->started & bit) || (r->stopped & bit)) {
    table_.drop(Drop::kStopWithoutStart);
    return;
  }
  if (stampNs < r->firstStart) {
    table_.drop(Drop::kStopBeforeStart);
    r->started = r->stopped = 0;  // the round is lost; the next starts afresh
    return;
  }
  if (r->stopped == 0) r->lastStop = stampNs;
  r->stopped |= bit;
  r->lastStop = std::max(r->lastStop, stampNs);
  if (--r->stopsLeft == 0) {  // every channel NCCL gave it has stopped
    int bin = table_.record(r->entry, r->lastStop - r->firstStart);
    if (switchback_ && bin >= 0) {
      if (r->switchback >= kCaptureBase) {
        capture_->record(r->switchback - kCaptureBase, bin);
      } else {
        switchback_->record(r->entry->key.collective, r->entry->key.bucket, r->switchback, bin);
      }
    }
    r->started = r->stopped = 0;
  }
}

void CollectiveTracker::enableSwitchback(std::shared_ptr<const telemetry::SwitchbackPlan> plan) {
  if (!plan || !plan->armMap) return;
  auto capture = config_.seesCaptures && plan->calls ? std::make_unique<CaptureTiming>() : nullptr;
  auto timing = std::make_unique<SwitchbackTiming>(std::move(plan));
  std::lock_guard<SpinLock> lock(lock_);
  switchback_ = std::move(timing);
  capture_ = std::move(capture);
}

void CollectiveTracker::dropEvent(Drop why) {
  std::lock_guard<SpinLock> lock(lock_);
  table_.drop(why);
}

telemetry::Timings CollectiveTracker::timings() const {
  std::vector<const TimingTable::Entry*> held;
  held.reserve(TimingTable::kMaxKeys);  // before the lock: collecting under it never allocates
  telemetry::Timings out;
  {
    std::lock_guard<SpinLock> lock(lock_);
    table_.collect(&held);
    out.dropped = table_.drops();
  }
  // Entries live as long as the table, so their addresses stay good, and their keys never change once made: the
  // list is sorted without the lock. Each copy takes the lock on its own, so the proxy thread waits for at most
  // one histogram's copy.
  std::sort(held.begin(), held.end(),
            [](const TimingTable::Entry* a, const TimingTable::Entry* b) { return a->key < b->key; });
  out.keys.resize(held.size());
  for (size_t i = 0; i < held.size(); ++i) {
    std::lock_guard<SpinLock> lock(lock_);
    out.keys[i].key = held[i]->key;
    out.keys[i].histogram = held[i]->histogram;
  }
  out.keys.erase(std::remove_if(out.keys.begin(), out.keys.end(),
                                [](const telemetry::KeyTimings& k) { return k.histogram.count() == 0; }),
                 out.keys.end());
  out.switchback = switchbackTimings();
  return out;
}

std::optional<telemetry::SwitchbackTimings> CollectiveTracker::switchbackTimings() const {
  std::vector<SwitchbackTiming::Pair> pairs;
  pairs.reserve(SwitchbackTiming::kMaxPairs);  // before the lock: copying under it never allocates
  std::shared_ptr<const telemetry::SwitchbackPlan> plan;
  uint64_t windows = 0, unattributed = 0;
  int total = 0;
  {
    std::lock_guard<SpinLock> lock(lock_);
    if (!switchback_) return std::nullopt;
    total = switchback_->pairs();
    windows = switchback_->windowsClosed();
    unattributed = switchback_->unattributed();
    plan = switchback_->plan();
  }
  // In parts, a lock hold each, as the histograms: the proxy thread waits for at most one part's copy. The
  // figures of one snapshot may then straddle a window's close: each part is whole, and every part only grows.
  for (int from = 0; from < total; from += SwitchbackTiming::kPairsPerCopy) {
    std::lock_guard<SpinLock> lock(lock_);
    switchback_->copyPairs(from, SwitchbackTiming::kPairsPerCopy, &pairs);
  }
  telemetry::SwitchbackTimings t = SwitchbackTiming::timingsOf(*plan, pairs, windows, unattributed);
  addCapturedTurns(*plan, &t);
  return t;
}

void CollectiveTracker::addCapturedTurns(const telemetry::SwitchbackPlan& plan, telemetry::SwitchbackTimings* t) const {
  std::vector<CaptureTiming::Slot> slots;
  uint32_t total = 0;
  {
    std::lock_guard<SpinLock> lock(lock_);
    if (!capture_) return;
    total = capture_->slots();
    t->capturedUntracked = capture_->untracked();
  }
  slots.reserve(total);  // slots made after this count wait for the next snapshot
  for (uint32_t from = 0; from < total; from += kCaptureSlotsPerCopy) {
    std::lock_guard<SpinLock> lock(lock_);
    capture_->copySlots(from, std::min(kCaptureSlotsPerCopy, total - from), &slots);
  }
  t->capturesTracked = true;
  t->captured = total + t->capturedUntracked;
  t->turns = CaptureTiming::turnsOf(slots, plan.block, plan.washout);
}

uint64_t CollectiveTracker::dropped(Drop why) const {
  std::lock_guard<SpinLock> lock(lock_);
  return table_.dropped(why);
}

}  // namespace nccl_roce::profiler

#include "telemetry/switchback.h"

#include <algorithm>
#include <tuple>

namespace nccl_roce::telemetry {

namespace {

constexpr uint32_t kUsed = 1u << 31;

uint32_t encode(int algorithm, int protocol, int channels, int arm, bool shared) {
  return kUsed | static_cast<uint32_t>(algorithm & 0xf) << 27 | static_cast<uint32_t>(protocol & 0x3) << 25 |
         static_cast<uint32_t>(std::clamp(channels, 0, 255)) << 17 | static_cast<uint32_t>(arm & 0xff) << 1 |
         (shared ? 1u : 0u);
}

int algorithmOf(uint32_t slot) {
  return static_cast<int>(slot >> 27 & 0xf);
}
int protocolOf(uint32_t slot) {
  return static_cast<int>(slot >> 25 & 0x3);
}
int channelsOf(uint32_t slot) {
  return static_cast<int>(slot >> 17 & 0xff);
}
int armOfSlot(uint32_t slot) {
  return static_cast<int>(slot >> 1 & 0xff);
}
bool sharedOf(uint32_t slot) {
  return (slot & 1u) != 0;
}

bool valid(int collective, int bucket, int algorithm, int protocol) {
  return isCell(collective, bucket) && algorithm >= 0 && algorithm < 16 && protocol >= 0 && protocol < 4;
}

}  // namespace

void ArmMap::note(int collective, int bucket, int algorithm, int protocol, int channels, int arm) {
  if (!valid(collective, bucket, algorithm, protocol) || arm < 0 || arm >= kMaxArms) return;
  const int cell = cellIndex(collective, bucket);
  const uint32_t wanted = encode(algorithm, protocol, channels, arm, false);
  for (int i = 0; i < kSlots; ++i) {
    std::atomic<uint32_t>& slot = slots_[static_cast<size_t>(cell) * kSlots + static_cast<size_t>(i)];
    uint32_t seen = slot.load(std::memory_order_acquire);
    if (seen == 0 && slot.compare_exchange_strong(seen, wanted, std::memory_order_acq_rel)) return;
    // Taken (by us or by another thread just now): the same choice is this slot's to update, any other the next's.
    if (algorithmOf(seen) != algorithm || protocolOf(seen) != protocol ||
        channelsOf(seen) != std::clamp(channels, 0, 255)) {
      continue;
    }
    if (armOfSlot(seen) != arm && !sharedOf(seen)) slot.fetch_or(1u, std::memory_order_acq_rel);
    return;
  }
  overflowed_[static_cast<size_t>(cell)].store(true, std::memory_order_release);
}

int ArmMap::armOf(int collective, int bucket, int algorithm, int protocol, int channels) const {
  if (!valid(collective, bucket, algorithm, protocol)) return kNoArm;
  const int cell = cellIndex(collective, bucket);
  int found = kNoArm;
  for (int i = 0; i < kSlots; ++i) {
    uint32_t slot = slots_[static_cast<size_t>(cell) * kSlots + static_cast<size_t>(i)].load(std::memory_order_acquire);
    if (slot == 0) break;
    if (algorithmOf(slot) != algorithm || protocolOf(slot) != protocol) continue;
    if (channelsOf(slot) != 0 && channelsOf(slot) != channels) continue;
    if (sharedOf(slot) || (found != kNoArm && found != armOfSlot(slot))) return kShared;
    found = armOfSlot(slot);
  }
  // A choice past the slots may have been any arm's: one noted here cannot be told from it.
  if (overflowed_[static_cast<size_t>(cell)].load(std::memory_order_acquire)) return kShared;
  return found;
}

bool SwitchbackCell::operator==(const SwitchbackCell& o) const {
  return std::tie(collective, bucket, arm, count, binSum, washedOut, windows, diffSum, diffSumSq) ==
         std::tie(o.collective, o.bucket, o.arm, o.count, o.binSum, o.washedOut, o.windows, o.diffSum, o.diffSumSq);
}

bool CapturedTurn::operator==(const CapturedTurn& o) const {
  return std::tie(collective, bucket, bytes, turn, arm, positions, meanBins, count, binSum, washedOut) ==
         std::tie(o.collective, o.bucket, o.bytes, o.turn, o.arm, o.positions, o.meanBins, o.count, o.binSum,
                  o.washedOut);
}

bool SwitchbackTimings::operator==(const SwitchbackTimings& o) const {
  return std::tie(arms, block, washout, window, turnsPerRound, windowsClosed, unattributed, cells, capturesTracked,
                  captured, capturedUntracked, turns) ==
         std::tie(o.arms, o.block, o.washout, o.window, o.turnsPerRound, o.windowsClosed, o.unattributed, o.cells,
                  o.capturesTracked, o.captured, o.capturedUntracked, o.turns);
}

uint32_t switchbackWindow(uint32_t block, uint32_t blocksPerRound) {
  uint64_t window = uint64_t{4} * block * std::max<uint32_t>(blocksPerRound, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>(window, 64, 16384));
}

}  // namespace nccl_roce::telemetry

#include "profiler/capture_timing.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace nccl_roce::profiler {

void CaptureTiming::addChunk(std::unique_ptr<Chunk> chunk) {
  if (chunk && chunksMade_ < kMaxChunks) chunks_[chunksMade_++] = std::move(chunk);
}

int CaptureTiming::capture(int cell, uint64_t bytes, uint64_t call) {
  if (used_ == chunksMade_ * kSlotsPerChunk) {  // no chunk could be made, or none is left to make
    ++untracked_;
    return -1;
  }
  Slot& s = at(used_);
  s = Slot{};
  s.call = call;
  s.bytes = bytes;
  s.cell = static_cast<int16_t>(cell);
  return static_cast<int>(used_++);
}

bool CaptureTiming::replay(int slot, int cell, int arm, TimingTable::Entry* entry) {
  if (slot < 0 || static_cast<uint32_t>(slot) >= used_ || arm < 0 || arm >= telemetry::ArmMap::kMaxArms) return false;
  Slot& s = at(static_cast<uint32_t>(slot));
  if (s.cell != cell) return false;
  if (s.arm < 0) {
    s.arm = static_cast<int8_t>(arm);
    s.entry = entry;
  }
  return s.arm == arm;
}

void CaptureTiming::record(int slot, int bin) {
  if (slot < 0 || static_cast<uint32_t>(slot) >= used_) return;
  Slot& s = at(static_cast<uint32_t>(slot));
  ++s.count;
  s.binSum += static_cast<uint64_t>(bin);
}

void CaptureTiming::copySlots(uint32_t from, uint32_t n, std::vector<Slot>* out) const {
  for (uint32_t i = from; i < std::min(from + n, used_); ++i) out->push_back(at(i));
}

std::vector<telemetry::CapturedTurn> CaptureTiming::turnsOf(const std::vector<Slot>& slots, uint32_t block,
                                                            uint32_t washout) {
  block = std::max<uint32_t>(block, 1);
  std::map<std::tuple<int, uint64_t, uint64_t, int>, telemetry::CapturedTurn> turns;  // (cell, bytes, turn, arm)
  for (const Slot& s : slots) {
    if (s.cell < 0 || s.arm < 0 || s.count == 0) continue;  // never replayed (or never by one arm): nothing timed
    telemetry::CapturedTurn& t = turns[{s.cell, s.bytes, s.call / block, s.arm}];
    t.collective = telemetry::collectiveOfCell(s.cell);
    t.bucket = telemetry::bucketOfCell(s.cell);
    t.bytes = s.bytes;
    t.turn = s.call / block;
    t.arm = static_cast<uint8_t>(s.arm);  // not negative: checked above
    if (s.call % block < washout) {       // where the arm may just have changed, at every replay
      ++t.washedOut;
      continue;
    }
    ++t.positions;
    t.meanBins += static_cast<double>(s.binSum) / s.count;
    t.count += s.count;
    t.binSum += s.binSum;
  }
  std::vector<telemetry::CapturedTurn> out;
  out.reserve(turns.size());
  for (auto& [key, turn] : turns) out.push_back(turn);
  return out;
}

}  // namespace nccl_roce::profiler

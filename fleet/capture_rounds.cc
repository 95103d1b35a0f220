#include "fleet/capture_rounds.h"

#include <algorithm>

namespace nccl_roce::fleet {

namespace {

// One side of a unit: its turns' means weighed by their positions, and their replays.
struct Side {
  double weightedMean = 0;
  uint32_t positions = 0;
  uint64_t count = 0, binSum = 0;

  void add(const CapturedTurnCell& t) {
    weightedMean += t.mean() * t.positions;
    positions += t.positions;
    count += t.count;
    binSum += t.binSum;
  }
  double mean() const { return weightedMean / positions; }
};

void addCommunicator(const SwitchbackRecord& sb, const std::string& reference, const std::string& arm, int collective,
                     std::map<uint64_t, CaptureUnits>* out) {
  const uint64_t perRound = std::max<uint32_t>(sb.turnsPerRound, 1);
  // (cell, bytes, round) -> (reference, arm)
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::pair<Side, Side>> rounds;
  for (const auto& [key, turn] : sb.turns) {
    const auto& [cell, bytes, number, name] = key;
    if (collectiveOfCell(cell) != collective || turn.positions == 0 || (name != reference && name != arm)) continue;
    std::pair<Side, Side>& round = rounds[{cell, bytes, number / perRound}];
    (name == reference ? round.first : round.second).add(turn);
  }
  for (const auto& [where, sides] : rounds) {
    CaptureUnits& u = (*out)[std::get<0>(where)];
    const auto& [ref, mine] = sides;
    if (ref.positions == 0 || mine.positions == 0) {  // one side only: nothing to compare it with
      u.unpairedReference += ref.count;
      u.unpairedArm += mine.count;
      continue;
    }
    u.differences.push_back(mine.mean() - ref.mean());
    u.sizes.insert(std::get<1>(where));
    u.countReference += ref.count;
    u.binSumReference += ref.binSum;
    u.countArm += mine.count;
    u.binSumArm += mine.binSum;
  }
}

}  // namespace

std::map<uint64_t, CaptureUnits> captureUnits(const Fleet& fleet, const std::string& reference, const std::string& arm,
                                              int collective) {
  std::map<uint64_t, CaptureUnits> out;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.switchback && c.switchback->capturesTracked) addCommunicator(*c.switchback, reference, arm, collective, &out);
  }
  return out;
}

}  // namespace nccl_roce::fleet

#include "fleet/switchback_ranks.h"

#include "common/strings.h"

namespace nccl_roce::fleet {

namespace {

std::map<std::string, uint64_t> callsPerArm(const CommunicatorRecord& r) {
  std::map<std::string, uint64_t> calls;
  for (const auto& [cell, decisions] : r.decisions) {
    for (const auto& [decision, count] : decisions) calls[decision.arm] += count;
  }
  return calls;
}

std::string described(const std::map<std::string, uint64_t>& calls) {
  std::string out;
  for (const auto& [arm, n] : calls) out += (out.empty() ? "" : ", ") + arm + " " + std::to_string(n);
  return out;
}

}  // namespace

bool mergeSwitchbackRank(FleetCommunicator& c, const CommunicatorRecord& r, std::string* why) {
  std::map<std::string, uint64_t> calls = callsPerArm(r);
  if (c.switchbackRanks == 0) {
    c.switchback = r.switchback;
    if (c.switchback) {
      c.switchback->cells.clear();
      c.switchback->turns.clear();
    }
    c.callsPerArm = calls;
  } else if (!r.switchback || !c.switchback || r.switchback->arms != c.switchback->arms ||
             (!calls.empty() && calls != c.callsPerArm)) {
    *why = "communicator " + formatHexId(r.commId) +
           ": its ranks' switchback turns disagree (tuner calls by arm: " + described(c.callsPerArm) + " in " +
           *c.files.begin() + "; " + described(calls) + " in " + r.file +
           "): ranks that decide differently can hang (NVIDIA/nccl#1136); left out: the causes are a policy file "
           "that differs between its pods, or ncclGroupSimulateEnd on some ranks only (docs/ab-testing.md, \"Why "
           "every rank counts the same calls\")";
    return false;
  }
  if (!r.switchback) return true;
  for (const auto& [key, cell] : r.switchback->cells) {
    SwitchbackArmCell& into = c.switchback->cells[key];
    into.count += cell.count;
    into.binSum += cell.binSum;
    into.washedOut += cell.washedOut;
    into.paired.add(cell.paired);
  }
  c.switchback->windows = std::max(c.switchback->windows, r.switchback->windows);
  c.switchback->unattributed += r.switchback->unattributed;
  // Captured collectives: every rank captured the same ones in the same turns (its tuner calls agree, above), so
  // a turn's means are averaged over the ranks that replayed it and its replays added up.
  c.switchback->turnsPerRound = std::max(c.switchback->turnsPerRound, r.switchback->turnsPerRound);
  c.switchback->capturesTracked = c.switchbackRanks == 0
                                      ? r.switchback->capturesTracked
                                      : c.switchback->capturesTracked && r.switchback->capturesTracked;
  c.switchback->captured = std::max(c.switchback->captured, r.switchback->captured);
  c.switchback->capturedUntracked = std::max(c.switchback->capturedUntracked, r.switchback->capturedUntracked);
  for (const auto& [key, turn] : r.switchback->turns) {
    CapturedTurnCell& into = c.switchback->turns[key];
    into.meanSum += turn.meanSum;
    into.ranks += turn.ranks;
    into.positions = std::max(into.positions, turn.positions);
    into.washedOut = std::max(into.washedOut, turn.washedOut);
    into.count += turn.count;
    into.binSum += turn.binSum;
  }
  ++c.switchbackRanks;
  return true;
}

void finishSwitchbackRanks(FleetCommunicator& c) {
  if (!c.switchback || c.switchbackRanks <= 1) return;
  const double ranks = c.switchbackRanks;
  for (auto& [key, cell] : c.switchback->cells) {
    cell.paired.windows /= ranks;
    cell.paired.sum /= ranks;
    cell.paired.sumSq /= ranks;
  }
}

}  // namespace nccl_roce::fleet

// The tuner's INFO line at a communicator's init, written and read in this one file: the plugin logs it
// (plugin/tuner_setup.cc) and `policy verify` and `proof` read it back from NCCL's log (inspect/nccl_info_log.h)
// to learn which policy each communicator ran. After NCCL's logger prefix ("NCCL-RoCE: ", common/log.h) it reads
//   tuner: comm 0x<id> (R ranks, N nodes) uses policy 'NAME' (SOURCE, DIGEST)[, experiment 'E' (DIGEST) arm A]:
//     K of M rules apply
// or, for a switchback experiment (every arm inside the communicator, in turns),
//   tuner: comm 0x<id> (R ranks, N nodes) runs experiment 'E' (DIGEST) as a switchback: arms A, B in turns of
//     T tuner calls, U turns a round
// on one line each. The form is part of docs/tuner.md ("What it logs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nccl_roce::telemetry {

struct TunerInfoLine {
  uint64_t commId = 0;
  int nRanks = 0, nNodes = 0;
  // The policy the communicator runs ("nccl", "-", "-" when it runs none); empty for a switchback.
  std::string policy, source, digest;
  // The experiment that chose it (arm: the arm's name) or that runs as a switchback; empty for none.
  std::string experiment, experimentDigest, arm;
  size_t rulesApplying = 0, rules = 0;  // of the policy's rules, how many can match this communicator's shape
  // A switchback: its arms in their order, the tuner calls of one turn, the turns of one round.
  bool switchback = false;
  std::vector<std::string> arms;
  uint32_t block = 0, turnsPerRound = 0;
};

// The message handed to the logger (without NCCL's or our prefix).
std::string renderTunerInfoLine(const TunerInfoLine& line);
// A message as renderTunerInfoLine writes it, after "NCCL-RoCE: "; nullopt for any other text.
std::optional<TunerInfoLine> parseTunerInfoLine(std::string_view message);

}  // namespace nccl_roce::telemetry

// A fleet's collected files read into one fleet. A collected directory holds more than our statistics files and
// Inspector dumps, and not all of them whole: the two formats are told apart by content, and what is neither is
// skipped and counted, never fatal:
//   - an empty file (Inspector creates its dump before the first collective it keeps),
//   - the cut-short last object of an Inspector dump (the append-only log of a process that was killed): the
//     objects before it are read,
//   - a file of neither format (an NCCL debug log, a vLLM log, a report of `nccl-roce ab` itself).
// A statistics file or an Inspector dump that fails its own checks is an error naming it: a hand-edited or
// damaged file never feeds a verdict.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/fleet.h"

namespace nccl_roce::fleet {

enum class InputKind { kEmpty, kStatistics, kInspector, kForeign };

// Ours name their schema ("nccl-roce.stats/..."); Inspector's carry "inspector_output_format_version".
InputKind inputKindOf(const std::string& text);

class FleetReader {
 public:
  // Reads one file's text into the fleet's records; an error names the file.
  Status add(const std::string& file, const std::string& text);
  // The fleet of every file added: its records merged per communicator (fleet.h), what was skipped and counted.
  StatusOr<Fleet> assemble() const;

 private:
  std::vector<CommunicatorRecord> statistics_, inspector_;
  std::vector<SkippedInput> skipped_;
  uint64_t pointToPoint_ = 0, otherCollectives_ = 0;
};

}  // namespace nccl_roce::fleet

// A fleet's collected files read into one fleet. A collected directory holds more than our statistics files and
// Inspector dumps, and not all of them whole: the two formats are told apart by content, and what is neither is
// skipped and listed, never fatal:
//   - an empty file (Inspector creates its dump before the first collective it keeps),
//   - the cut-short last object of an Inspector dump (the append-only log of a process that was killed): the
//     objects before it are read,
//   - a file of neither format (an NCCL debug log, a vLLM log, a report of `nccl-roce ab` itself).
// A statistics file or an Inspector dump that fails its own checks (a copy cut short, a hand edit) is an error
// naming it: a damaged file never feeds a verdict. The caller may list it as skipped instead (skipUnreadable).
// The commands' gates (--strict, --fail-on-slower) refuse to pass on what was skipped (SkippedInput::error).
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
  // Reads one file's text into the fleet's records; an error names the file (and says when it was cut short).
  Status add(const std::string& file, const std::string& text);
  // Lists `file`, which could not be read or failed its checks (`why`), as skipped: an input error.
  void skipUnreadable(const std::string& file, const std::string& why);
  // Lists an entry of a directory that was not read (a link, a FIFO: common/directory_walk.h) as skipped;
  // `error` where what it points at could have been statistics.
  void skip(const std::string& file, const std::string& why, bool error);
  // The fleet of every file added: its records merged per communicator (fleet.h), what was skipped and counted.
  // With `experiment` (a name or an experiment_hash) only that experiment's (fleet/experiment_choice.h).
  StatusOr<Fleet> assemble(const std::string& experiment = "") const;

 private:
  StatusOr<Fleet> withInputs(StatusOr<Fleet> fleet, const std::string& chosen) const;

  std::vector<CommunicatorRecord> statistics_, inspector_;
  std::vector<SkippedInput> skipped_;
  uint64_t pointToPoint_ = 0, otherCollectives_ = 0;
};

}  // namespace nccl_roce::fleet

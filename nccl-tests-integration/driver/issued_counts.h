// What the driver issued, counted by the driver itself, so that a run under the profiler can be checked against
// it: every collective NCCL ran must be timed once, no more, no fewer (docs/gpu-proof.md, "Counts"). Each rank
// prints its counts at the end, one line per collective, to its own output:
//
//   # nccl-roce-issued: rank=0 pid=620 host=vm collective=AllReduce eager=1248 captured=0 graph_launches=0 replayed=0
//
// `eager` calls run once each; `captured` calls were recorded into CUDA graphs (-G/--cudagraph, nccl-tests' flag:
// the timed iterations of each size captured once, then the graph launched N times), which run nothing at capture
// and each of their launches `replayed` them. NCCL asks the tuner at enqueue, captures included, and replays ask
// nothing (docs/ab-testing.md, "Why every rank counts the same calls"); the profiler times every collective that
// runs. So:
//   tuner calls = eager + captured;  collectives timed = eager + replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/driver/driver_options.h"

namespace nccl_roce::driver {

struct IssuedCounts {
  uint64_t eager = 0;
  uint64_t captured = 0;
  uint64_t graphLaunches = 0;
  uint64_t replayed = 0;  // collectives run by graph launches: captured per graph x its launches

  uint64_t tunerCalls() const { return eager + captured; }
  uint64_t timed() const { return eager + replayed; }
  bool operator==(const IssuedCounts& o) const {
    return eager == o.eager && captured == o.captured && graphLaunches == o.graphLaunches && replayed == o.replayed;
  }
};

// What a run with these options issues, per collective: all-reduce, and the all-gather of the device list. Per
// size: warm-up out of place and in place (eager), the timed iterations out of place and in place (eager, or one
// captured graph each, launched graphLaunches times), the in-place check (with -c 1), and the all-reduce of the
// 4 doubles of results (32 bytes).
struct DriverIssued {
  IssuedCounts allReduce, allGather;
};
DriverIssued expectedIssued(const DriverOptions& options);

// One line of a rank's counts for one collective ("AllReduce", "AllGather"), as above, newline-terminated.
struct IssuedLine {
  int rank = 0;
  int64_t pid = 0;
  std::string host;  // gethostname(): what the statistics file's "host" says
  std::string collective;
  IssuedCounts counts;
};
std::string formatIssuedLine(const IssuedLine& line);
// nullopt for any other line; `line` may carry a launcher's prefix before "# nccl-roce-issued:".
std::optional<IssuedLine> parseIssuedLine(std::string_view line);
// Every such line of a text (a rank's output).
std::vector<IssuedLine> issuedLinesOf(std::string_view text);

}  // namespace nccl_roce::driver

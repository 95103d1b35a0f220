#include "cli/ab_flat_timings.h"

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "fleet/fleet_records.h"
#include "telemetry/nccl_names.h"
#include "verdicts/flat_timings.h"

namespace nccl_roce::cli {

namespace {

// An arm's time per bucket (its lower bound in bytes: the bucket's sizes share a power of two).
std::map<uint64_t, double> bySize(const verdicts::UnitComparison& cells, bool control) {
  std::map<uint64_t, double> out;
  for (const verdicts::CellComparison& c : cells.cells) {
    int n = control ? c.nA : c.nB;
    if (n > 0) out[uint64_t{1} << fleet::bucketOfCell(c.cell)] = control ? c.geomeanA : c.geomeanB;
  }
  return out;
}

}  // namespace

bool noteFlatTimings(fleet::AbReport& report, const char* command) {
  std::set<std::string> said;
  for (const fleet::ArmComparison& c : report.comparisons) {
    for (bool control : {true, false}) {
      const std::string& arm = control ? report.control : c.arm;
      std::optional<verdicts::FlatSpan> flat = verdicts::findFlatSpan(bySize(c.cells, control));
      if (!flat) continue;
      std::string note = "flat timings: " + std::string(telemetry::collectiveName(c.collective)) + " of arm '" + arm +
                         "' (" + fleet::timingClockName(c.clock) + " clock) took " + verdicts::describeFlatSpan(*flat) +
                         ": " + verdicts::kFlatMeaning;
      if (!said.insert(note).second) continue;
      report.notes.push_back(note);
      std::fprintf(stderr, "nccl-roce %s: %s\n", command, note.c_str());
    }
  }
  return !said.empty();
}

}  // namespace nccl_roce::cli

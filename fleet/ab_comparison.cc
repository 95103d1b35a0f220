#include "fleet/ab_comparison.h"

#include <set>
#include <tuple>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/arm_census.h"
#include "fleet/same_choice.h"
#include "fleet/switchback_comparison.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

namespace {

struct Side {
  std::vector<verdicts::Unit> units;
  std::map<uint64_t, uint64_t> collectives;
};

// The communicators of `arm` as units over the cells of `collective` timed with `clock` where each ran enough
// collectives.
Side unitsOf(const Fleet& fleet, const std::string& arm, int collective, TimingClock clock, uint64_t minCollectives) {
  Side side;
  for (const FleetCommunicator& c : fleet.communicators) {
    auto timed = c.timings.find(clock);
    if (c.arm != arm || timed == c.timings.end()) continue;
    verdicts::Unit unit;
    unit.name = "comm " + formatHexId(c.commId);
    for (const auto& [cell, timing] : timed->second) {
      if (collectiveOfCell(cell) != collective) continue;
      std::optional<double> value = communicatorValueUs(timing, minCollectives);
      if (!value) continue;
      unit.values[cell] = *value;
      side.collectives[cell] += timing.collectives;
    }
    if (!unit.values.empty()) side.units.push_back(std::move(unit));
  }
  return side;
}

// The summary's cells: in [lo, hi] and measured by at least half of each side's units.
std::vector<uint64_t> summaryCells(const Side& a, const Side& b, uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> cells;
  for (uint64_t cell = lo; cell <= hi; ++cell) {
    bool common = true;
    for (const Side* side : {&a, &b}) {
      size_t measured = 0;
      for (const verdicts::Unit& u : side->units) measured += u.values.count(cell);
      common &= measured > 0 && measured * 2 >= side->units.size();
    }
    if (common) cells.push_back(cell);
  }
  return cells;
}

// The units that measured every one of `cells`, restricted to them.
std::vector<verdicts::Unit> withAll(const std::vector<verdicts::Unit>& units, const std::vector<uint64_t>& cells) {
  std::vector<verdicts::Unit> out;
  for (const verdicts::Unit& u : units) {
    verdicts::Unit kept{u.name, {}};
    for (uint64_t cell : cells) {
      auto it = u.values.find(cell);
      if (it != u.values.end()) kept.values.emplace(cell, it->second);
    }
    if (kept.values.size() == cells.size()) out.push_back(std::move(kept));
  }
  return out;
}

// Why the summary has no verdict when keeping only the communicators that measured all its buckets leaves a side
// with fewer than the minimum; "" when both keep enough.
std::string shrunkBelowMinimum(const ArmComparison& c, const std::string& control, size_t buckets, int minimum) {
  std::string why;
  for (const auto& [name, kept, all] : {std::tuple{control, c.summaryControl, c.communicatorsControl},
                                        std::tuple{c.arm, c.summaryArm, c.communicatorsArm}}) {
    if (kept >= minimum) continue;
    why += format("%s%d of the %d communicators of '%s'", why.empty() ? "" : " and ", kept, all, name.c_str());
  }
  if (why.empty()) return why;
  return "only " + why + format(" measured all %zu size buckets: fewer than the %d a verdict needs", buckets, minimum);
}

ArmComparison compareArm(const Fleet& fleet, const std::string& arm, int collective, TimingClock clock,
                         const AbOptions& o) {
  Side control = unitsOf(fleet, o.control, collective, clock, o.minCollectives);
  Side candidate = unitsOf(fleet, arm, collective, clock, o.minCollectives);
  uint64_t lo = cellOf(collective, telemetry::sizeBucket(o.rangeLo)),
           hi = cellOf(collective, telemetry::sizeBucket(o.rangeHi));
  ArmComparison c;
  c.arm = arm;
  c.collective = collective;
  c.clock = clock;
  c.communicatorsControl = static_cast<int>(control.units.size());
  c.communicatorsArm = static_cast<int>(candidate.units.size());
  c.collectivesControl = control.collectives;
  c.collectivesArm = candidate.collectives;
  c.cells = verdicts::compareUnits(control.units, candidate.units, lo, hi, o.settings);
  c.decidedAlike = cellsDecidedAlike(fleet, o.control, arm);
  std::vector<uint64_t> cells = summaryCells(control, candidate, lo, hi);
  std::vector<verdicts::Unit> a = withAll(control.units, cells), b = withAll(candidate.units, cells);
  c.summaryControl = static_cast<int>(a.size());
  c.summaryArm = static_cast<int>(b.size());
  c.leftOutOfSummary = static_cast<int>(control.units.size() + candidate.units.size() - a.size() - b.size());
  c.summary = verdicts::compareUnits(a, b, lo, hi, o.settings).range;
  if (cells.empty()) {
    c.summary.whyNoInterval = "no size bucket in range was measured by half the communicators of each arm";
    return c;
  }
  std::string shrunk = shrunkBelowMinimum(c, o.control, cells.size(), o.settings.minUnits);
  if (!shrunk.empty()) {
    c.summary.verdict = verdicts::Verdict::kInsufficient;
    c.summary.interval.reset();
    c.summary.whyNoInterval = shrunk;
  }
  return c;
}

}  // namespace

StatusOr<AbReport> compareArms(const Fleet& fleet, const AbOptions& options) {
  if (isSwitchbackFleet(fleet)) return compareSwitchback(fleet, options);
  AbReport report;
  report.experiment = fleet.experiment;
  report.control = options.control;
  report.options = options;
  report.errors = fleet.errors;
  report.skipped = fleet.skipped;
  ArmCensus census = censusOfArms(fleet, /*needNodeCount=*/false);
  report.notes = fleet.notes;
  report.notes.insert(report.notes.end(), census.notes.begin(), census.notes.end());
  Status arms = checkArms(census, options.control, "nothing to compare");
  if (!arms.isOk()) return arms;
  report.communicatorsPerArm = census.communicatorsPerArm;
  std::set<std::pair<TimingClock, int>> timed;  // GPU first
  for (const FleetCommunicator& c : fleet.communicators) {
    for (const auto& [clock, cells] : c.timings) {
      for (const auto& [cell, timing] : cells) timed.emplace(clock, collectiveOfCell(cell));
    }
  }
  for (const auto& [arm, n] : report.communicatorsPerArm) {
    if (arm == options.control) continue;
    for (const auto& [clock, collective] : timed) {
      report.comparisons.push_back(compareArm(fleet, arm, collective, clock, options));
    }
  }
  return report;
}

}  // namespace nccl_roce::fleet

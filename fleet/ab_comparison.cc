#include "fleet/ab_comparison.h"

#include <set>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/arm_census.h"
#include "tuner/decision_counts.h"

namespace nccl_roce::fleet {

namespace {

struct Side {
  std::vector<verdicts::Unit> units;
  std::map<uint64_t, uint64_t> collectives;
};

// The communicators of `arm` as units over the cells of `collective` where each timed enough collectives.
Side unitsOf(const Fleet& fleet, const std::string& arm, int collective, uint64_t minCollectives) {
  Side side;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.arm != arm) continue;
    verdicts::Unit unit;
    unit.name = format("comm 0x%016llx", static_cast<unsigned long long>(c.commId));
    for (const auto& [cell, timings] : c.timings) {
      if (collectiveOfCell(cell) != collective) continue;
      std::optional<double> value = communicatorValueUs(timings, minCollectives);
      if (!value) continue;
      unit.values[cell] = *value;
      side.collectives[cell] += timings.count;
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

ArmComparison compareArm(const Fleet& fleet, const std::string& arm, int collective, const AbOptions& o) {
  Side control = unitsOf(fleet, o.control, collective, o.minCollectives);
  Side candidate = unitsOf(fleet, arm, collective, o.minCollectives);
  uint64_t lo = cellOf(collective, tuner::sizeBucket(o.rangeLo)), hi = cellOf(collective, tuner::sizeBucket(o.rangeHi));
  ArmComparison c;
  c.arm = arm;
  c.collective = collective;
  c.communicatorsControl = static_cast<int>(control.units.size());
  c.communicatorsArm = static_cast<int>(candidate.units.size());
  c.collectivesControl = control.collectives;
  c.collectivesArm = candidate.collectives;
  c.cells = verdicts::compareUnits(control.units, candidate.units, lo, hi, o.settings);
  std::vector<uint64_t> cells = summaryCells(control, candidate, lo, hi);
  std::vector<verdicts::Unit> a = withAll(control.units, cells), b = withAll(candidate.units, cells);
  c.leftOutOfSummary = static_cast<int>(control.units.size() + candidate.units.size() - a.size() - b.size());
  c.summary = verdicts::compareUnits(a, b, lo, hi, o.settings).range;
  if (cells.empty()) c.summary.whyNoInterval = "no size bucket in range was measured by half the communicators of each arm";
  return c;
}

}  // namespace

StatusOr<AbReport> compareArms(const Fleet& fleet, const AbOptions& options) {
  AbReport report;
  report.experiment = fleet.experiment;
  report.control = options.control;
  report.options = options;
  report.errors = fleet.errors;
  ArmCensus census = censusOfArms(fleet, /*needNodeCount=*/false);
  report.notes = fleet.notes;
  report.notes.insert(report.notes.end(), census.notes.begin(), census.notes.end());
  Status arms = checkArms(census, options.control, "nothing to compare");
  if (!arms.isOk()) return arms;
  report.communicatorsPerArm = census.communicatorsPerArm;
  std::set<int> collectives;
  for (const FleetCommunicator& c : fleet.communicators) {
    for (const auto& [cell, timings] : c.timings) collectives.insert(collectiveOfCell(cell));
  }
  for (const auto& [arm, n] : report.communicatorsPerArm) {
    if (arm == options.control) continue;
    for (int collective : collectives) report.comparisons.push_back(compareArm(fleet, arm, collective, options));
  }
  return report;
}

}  // namespace nccl_roce::fleet

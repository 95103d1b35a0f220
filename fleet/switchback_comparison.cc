#include "fleet/switchback_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/log.h"
#include "common/strings.h"
#include "fleet/capture_rounds.h"
#include "fleet/same_choice.h"
#include "telemetry/log_histogram.h"
#include "telemetry/size_bucket.h"
#include "verdicts/paired_ratio.h"
#include "verdicts/signed_rank.h"
#include "verdicts/verdict.h"

namespace nccl_roce::fleet {

namespace {

// One arm's timings and pairs in one cell, over every switchback communicator.
struct Pooled {
  uint64_t count = 0, binSum = 0;
  verdicts::PairedSums paired;
};

std::map<uint64_t, Pooled> pooledCells(const Fleet& fleet, const std::string& arm, int collective) {
  std::map<uint64_t, Pooled> out;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (!c.switchback) continue;
    for (const auto& [key, cell] : c.switchback->cells) {
      if (key.second != arm || collectiveOfCell(key.first) != collective) continue;
      Pooled& p = out[key.first];
      p.count += cell.count;
      p.binSum += cell.binSum;
      p.paired.add(cell.paired);
    }
  }
  return out;
}

double geometricMeanUs(const Pooled& p) {
  std::optional<double> ns = telemetry::LogHistogram::geometricMeanNs(p.count, p.binSum);
  return ns ? *ns / 1000.0 : 0;
}

verdicts::CellComparison compareCell(uint64_t cell, const Pooled& reference, const Pooled& arm, bool alike,
                                     const verdicts::Settings& settings) {
  verdicts::CellComparison c;
  c.cell = cell;
  c.nA = c.nB = static_cast<int>(arm.paired.windows);
  c.geomeanA = geometricMeanUs(reference);
  c.geomeanB = geometricMeanUs(arm);
  c.ratio = c.geomeanA > 0 ? c.geomeanB / c.geomeanA : 1;
  if (alike && arm.paired.windows < 2) {
    c.whyNoInterval = "A/A: both arms ran the same choice here, so no collective belongs to either";
    return c;
  }
  StatusOr<verdicts::RatioInterval> interval = verdicts::pairedRatio(arm.paired, logBinWidth(), settings.confidence);
  if (!interval.isOk()) {
    c.whyNoInterval = interval.status().message();
  } else if (arm.paired.windows < settings.minUnits) {
    c.whyNoInterval = "fewer than " + std::to_string(settings.minUnits) + " windows";
  } else {
    c.interval = *interval;
    c.ratio = interval->ratio;
    c.verdict = verdicts::verdictFor(*interval, settings.minEffect);
  }
  return c;
}

void countVerdict(verdicts::RangeComparison& s, verdicts::Verdict v) {
  switch (v) {
    case verdicts::Verdict::kFaster:
      ++s.faster;
      break;
    case verdicts::Verdict::kSlower:
      ++s.slower;
      break;
    case verdicts::Verdict::kNoDifference:
      ++s.noDifference;
      break;
    case verdicts::Verdict::kInsufficient:
      ++s.insufficient;
      break;
  }
}

// The summary over [lo, hi]: every bucket with an interval that is not an A/A.
void summarise(ArmComparison& c, const std::map<uint64_t, Pooled>& arm, const AbOptions& o) {
  verdicts::RangeComparison& s = c.summary;
  s.lo = cellOf(c.collective, telemetry::sizeBucket(o.rangeLo));
  s.hi = cellOf(c.collective, telemetry::sizeBucket(o.rangeHi));
  std::vector<verdicts::PairedSums> cells;
  for (const verdicts::CellComparison& cell : c.cells.cells) {
    if (cell.cell < s.lo || cell.cell > s.hi) continue;
    countVerdict(s, cell.verdict);
    if (!cell.interval) continue;
    s.cells.push_back(cell.cell);
    cells.push_back(arm.at(cell.cell).paired);
  }
  StatusOr<verdicts::RatioInterval> interval =
      verdicts::meanOfPairedRatios(cells, logBinWidth(), o.settings.confidence);
  if (!interval.isOk()) {
    s.whyNoInterval = cells.empty() ? "no size bucket in range has windows of both arms" : interval.status().message();
    return;
  }
  s.interval = *interval;
  s.verdict = verdicts::verdictFor(*interval, o.settings.minEffect);
}

// Replays of captured collectives: each cell's capture rounds.
verdicts::CellComparison compareRounds(uint64_t cell, const CaptureUnits& u, bool alike,
                                       const verdicts::Settings& settings) {
  verdicts::CellComparison c;
  c.cell = cell;
  c.nA = c.nB = static_cast<int>(u.differences.size());
  auto geomeanUs = [](uint64_t count, uint64_t binSum) {
    std::optional<double> ns = telemetry::LogHistogram::geometricMeanNs(count, binSum);
    return ns ? *ns / 1000.0 : 0;
  };
  c.geomeanA = geomeanUs(u.countReference, u.binSumReference);
  c.geomeanB = geomeanUs(u.countArm, u.binSumArm);
  c.ratio = c.geomeanA > 0 ? c.geomeanB / c.geomeanA : 1;
  if (alike && u.differences.empty()) {
    c.whyNoInterval = "A/A: both arms ran the same choice here, so no collective belongs to either";
    return c;
  }
  if (u.differences.empty()) {
    c.whyNoInterval =
        "no capture round of this bucket holds both arms: every captured collective here ran one arm at every "
        "replay, so arm and graph (batch size) are confounded; a shorter block turns inside graphs";
    return c;
  }
  StatusOr<verdicts::RatioInterval> interval =
      verdicts::signedRankRatio(u.differences, logBinWidth(), settings.confidence);
  if (!interval.isOk()) {
    c.whyNoInterval = "insufficient data: " + interval.status().message();
    return c;
  }
  c.interval = *interval;
  c.ratio = interval->ratio;
  c.verdict = verdicts::verdictFor(*interval, settings.minEffect);
  return c;
}

// The summary of replays: one shift common to the buckets in range with units, each bucket weighing alike.
void summariseRounds(ArmComparison& c, const std::map<uint64_t, CaptureUnits>& units, const AbOptions& o) {
  verdicts::RangeComparison& s = c.summary;
  s.lo = cellOf(c.collective, telemetry::sizeBucket(o.rangeLo));
  s.hi = cellOf(c.collective, telemetry::sizeBucket(o.rangeHi));
  std::vector<std::vector<double>> cells;
  for (const verdicts::CellComparison& cell : c.cells.cells) {
    if (cell.cell < s.lo || cell.cell > s.hi) continue;
    countVerdict(s, cell.verdict);
    auto u = units.find(cell.cell);
    if (u == units.end() || u->second.differences.empty() || c.decidedAlike.count(cell.cell) > 0) continue;
    s.cells.push_back(cell.cell);
    cells.push_back(u->second.differences);
  }
  StatusOr<verdicts::RatioInterval> interval =
      verdicts::stratifiedSignedRankRatio(cells, logBinWidth(), o.settings.confidence);
  if (!interval.isOk()) {
    s.whyNoInterval = cells.empty() ? "no size bucket in range has capture rounds of both arms"
                                    : "insufficient data: " + interval.status().message();
    return;
  }
  s.interval = *interval;
  s.verdict = verdicts::verdictFor(*interval, o.settings.minEffect);
}

ArmComparison compareReplays(const Fleet& fleet, const std::string& reference, const std::string& arm, int collective,
                             const AbOptions& o) {
  ArmComparison c;
  c.arm = arm;
  c.traffic = "graph";
  c.collective = collective;
  c.decidedAlike = cellsDecidedAlike(fleet, reference, arm);
  std::map<uint64_t, CaptureUnits> units = captureUnits(fleet, reference, arm, collective);
  for (const auto& [cell, u] : units) {
    c.cells.cells.push_back(compareRounds(cell, u, c.decidedAlike.count(cell) > 0, o.settings));
    c.collectivesControl[cell] = u.countReference;
    c.collectivesArm[cell] = u.countArm;
    c.unpairedControl[cell] = u.unpairedReference;
    c.graphs[cell] = static_cast<int>(u.sizes.size());
    c.unpairedArm[cell] = u.unpairedArm;
  }
  for (const FleetCommunicator& comm : fleet.communicators) {
    c.communicatorsArm += comm.switchback && comm.switchback->capturesTracked ? 1 : 0;
  }
  c.communicatorsControl = c.summaryControl = c.summaryArm = c.communicatorsArm;
  summariseRounds(c, units, o);
  return c;
}

ArmComparison compareArm(const Fleet& fleet, const std::string& reference, const std::string& arm, int collective,
                         const AbOptions& o) {
  ArmComparison c;
  c.arm = arm;
  c.collective = collective;
  c.decidedAlike = cellsDecidedAlike(fleet, reference, arm);
  std::map<uint64_t, Pooled> ref = pooledCells(fleet, reference, collective),
                             mine = pooledCells(fleet, arm, collective);
  for (const auto& [cell, pooled] : mine) {
    auto r = ref.find(cell);
    if (r == ref.end()) continue;
    c.cells.cells.push_back(compareCell(cell, r->second, pooled, c.decidedAlike.count(cell) > 0, o.settings));
    c.collectivesControl[cell] = r->second.count;
    c.collectivesArm[cell] = pooled.count;
  }
  // Where the arms decided alike, the profiler timed no collective for either: the report still names the bucket.
  for (uint64_t cell : c.decidedAlike) {
    if (collectiveOfCell(cell) != collective || (mine.count(cell) > 0 && ref.count(cell) > 0)) continue;
    c.cells.cells.push_back(compareCell(cell, Pooled{}, Pooled{}, true, o.settings));
  }
  std::sort(c.cells.cells.begin(), c.cells.cells.end(),
            [](const verdicts::CellComparison& a, const verdicts::CellComparison& b) { return a.cell < b.cell; });
  for (const FleetCommunicator& comm : fleet.communicators) c.communicatorsArm += comm.switchback ? 1 : 0;
  c.communicatorsControl = c.summaryControl = c.summaryArm = c.communicatorsArm;
  summarise(c, mine, o);
  return c;
}

// What the report must say about its units: windows that may hold replays, captures the profiler could not keep,
// and buckets where capture put whole graphs on one arm.
void addCaptureNotes(const Fleet& fleet, AbReport& report, int untold) {
  if (untold > 0) {
    report.notes.push_back(format(
        "%d switchback communicator%s did not tell replays of CUDA graphs from eager collectives (NCCL before 2.28, "
        "or statistics of schema /3): %s windows hold every replay, whose arm was fixed at capture, so a position "
        "effect inside a graph (the first all-reduce of a step slower, attention against MLP) can bias %s verdicts "
        "beyond their error rate (docs/statistics.md)",
        untold, untold == 1 ? "" : "s", untold == 1 ? "its" : "their", untold == 1 ? "its" : "their"));
  }
  uint64_t untracked = 0;
  for (const FleetCommunicator& c : fleet.communicators)
    untracked += c.switchback ? c.switchback->capturedUntracked : 0;
  if (untracked > 0) {
    report.notes.push_back(
        format("%llu captured collectives past what the profiler keeps per communicator: their "
               "replays were not timed",
               static_cast<unsigned long long>(untracked)));
  }
  for (const ArmComparison& c : report.comparisons) {
    if (c.traffic != "graph") continue;
    for (const auto& [cell, control] : c.unpairedControl) {
      const uint64_t unpaired = control + c.unpairedArm.at(cell);
      const uint64_t paired = c.collectivesControl.at(cell) + c.collectivesArm.at(cell);
      if (unpaired == 0 || (paired > 0 && unpaired * 4 < unpaired + paired)) continue;
      report.notes.push_back(format(
          "%s, %s: %llu of %llu replayed collectives ran in capture rounds where only one of the two arms captured "
          "this bucket: arm and graph (batch size) are confounded there, and they are not compared (a block that "
          "turns inside each graph avoids it: docs/ab-testing.md, \"Choosing the block\")",
          c.arm.c_str(), describeCell(cell).c_str(), static_cast<unsigned long long>(unpaired),
          static_cast<unsigned long long>(unpaired) + paired));
    }
  }
}

const FleetCommunicator* firstSwitchback(const Fleet& fleet) {
  for (const FleetCommunicator& c : fleet.communicators) {
    if (c.switchback && !c.switchback->arms.empty()) return &c;
  }
  return nullptr;
}

}  // namespace

double logBinWidth() {
  return std::log(telemetry::LogHistogram::gamma());
}

bool isSwitchbackFleet(const Fleet& fleet) {
  return firstSwitchback(fleet) != nullptr;
}

StatusOr<AbReport> compareSwitchback(const Fleet& fleet, const AbOptions& options) {
  const FleetCommunicator* first = firstSwitchback(fleet);
  if (first == nullptr) return Status(StatusCode::kFailedPrecondition, "no communicator has switchback timings");
  const std::vector<std::string>& arms = first->switchback->arms;
  if (options.control != arms[0] && options.control != AbOptions().control) {
    return Status(StatusCode::kInvalidArgument,
                  "a switchback's windows pair every arm with its reference, '" + arms[0] +
                      "' (the experiment's first arm): --control must name it, or be left out");
  }
  AbReport report;
  report.design = "switchback";
  report.experiment = fleet.experiment;
  report.control = arms[0];
  report.options = options;
  report.options.control = arms[0];
  report.errors = fleet.errors;
  report.skipped = fleet.skipped;
  report.notes = fleet.notes;
  std::set<int> eager, replayed;
  int untold = 0;
  for (const FleetCommunicator& c : fleet.communicators) {
    if (!c.switchback) continue;
    for (const std::string& arm : arms) ++report.communicatorsPerArm[arm];
    for (const auto& [key, cell] : c.switchback->cells) eager.insert(collectiveOfCell(key.first));
    for (const auto& [key, turn] : c.switchback->turns) replayed.insert(collectiveOfCell(std::get<0>(key)));
    untold += c.switchback->capturesTracked ? 0 : 1;
  }
  for (size_t a = 1; a < arms.size(); ++a) {
    for (int collective : replayed)
      report.comparisons.push_back(compareReplays(fleet, arms[0], arms[a], collective, options));
    for (int collective : eager) {
      report.comparisons.push_back(compareArm(fleet, arms[0], arms[a], collective, options));
      report.comparisons.back().traffic = untold > 0 ? "all" : "eager";
    }
  }
  addCaptureNotes(fleet, report, untold);
  return report;
}

}  // namespace nccl_roce::fleet

#include "verdicts/unit_comparison.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace nccl_roce::verdicts {

namespace {

bool everyUnitMeasured(const std::vector<Unit>& units, uint64_t cell) {
  return std::all_of(units.begin(), units.end(), [cell](const Unit& u) { return u.values.count(cell) > 0; });
}

// A verdict from an interval, or kInsufficient (with the reason) when there is none or too few units.
Verdict judge(const StatusOr<RatioInterval>& interval, int nA, int nB, const Settings& settings, std::string* whyNot) {
  if (!interval.isOk()) {
    *whyNot = interval.status().message();
    return Verdict::kInsufficient;
  }
  if (nA < settings.minUnits || nB < settings.minUnits) {
    *whyNot = "fewer than " + std::to_string(settings.minUnits) + " units on a side";
    return Verdict::kInsufficient;
  }
  return verdictFor(*interval, settings.minEffect);
}

CellComparison compareCell(const std::vector<Unit>& a, const std::vector<Unit>& b, uint64_t cell,
                           const Settings& settings) {
  CellComparison c;
  c.cell = cell;
  std::vector<double> va = valuesAt(a, cell), vb = valuesAt(b, cell);
  c.nA = static_cast<int>(va.size());
  c.nB = static_cast<int>(vb.size());
  bool positive = std::all_of(va.begin(), va.end(), [](double v) { return v > 0 && std::isfinite(v); }) &&
                  std::all_of(vb.begin(), vb.end(), [](double v) { return v > 0 && std::isfinite(v); });
  if (positive) {
    c.geomeanA = geometricMean(va);
    c.geomeanB = geometricMean(vb);
    c.ratio = c.geomeanB / c.geomeanA;
  }
  StatusOr<RatioInterval> interval = ratioOfGeometricMeans(va, vb, settings.confidence, settings.degreesOfFreedom);
  c.verdict = judge(interval, c.nA, c.nB, settings, &c.whyNoInterval);
  if (interval.isOk()) c.interval = *interval;
  return c;
}

// Each unit's mean log value over `cells`, as a value on the original scale (its geometric mean).
std::vector<double> rangeValues(const std::vector<Unit>& units, const std::vector<uint64_t>& cells) {
  std::vector<double> out;
  for (const Unit& u : units) {
    double sum = 0;
    for (uint64_t cell : cells) sum += std::log(u.values.at(cell));
    out.push_back(std::exp(sum / static_cast<double>(cells.size())));
  }
  return out;
}

void summariseRange(const std::vector<Unit>& a, const std::vector<Unit>& b, const std::vector<CellComparison>& cells,
                    const Settings& settings, RangeComparison* range) {
  for (const CellComparison& c : cells) {
    if (c.cell < range->lo || c.cell > range->hi) continue;
    switch (c.verdict) {
      case Verdict::kFaster:
        ++range->faster;
        break;
      case Verdict::kSlower:
        ++range->slower;
        break;
      case Verdict::kNoDifference:
        ++range->noDifference;
        break;
      case Verdict::kInsufficient:
        ++range->insufficient;
        break;
    }
    if (!(c.geomeanA > 0)) continue;  // a value that is not a positive time; the cell says why
    bool even = everyUnitMeasured(a, c.cell) && everyUnitMeasured(b, c.cell);
    (even ? range->cells : range->unevenCells).push_back(c.cell);
  }
  if (range->cells.empty()) {
    range->whyNoInterval = "no cell in range was measured by every unit on both sides";
    return;
  }
  StatusOr<RatioInterval> interval = ratioOfGeometricMeans(rangeValues(a, range->cells), rangeValues(b, range->cells),
                                                           settings.confidence, settings.degreesOfFreedom);
  range->verdict =
      judge(interval, static_cast<int>(a.size()), static_cast<int>(b.size()), settings, &range->whyNoInterval);
  if (interval.isOk()) range->interval = *interval;
}

}  // namespace

std::vector<double> valuesAt(const std::vector<Unit>& units, uint64_t cell) {
  std::vector<double> out;
  for (const Unit& u : units) {
    auto found = u.values.find(cell);
    if (found != u.values.end()) out.push_back(found->second);
  }
  return out;
}

double geometricMean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

UnitComparison compareUnits(const std::vector<Unit>& a, const std::vector<Unit>& b, uint64_t lo, uint64_t hi,
                            const Settings& settings) {
  std::set<uint64_t> cellsA, cellsB;
  for (const Unit& u : a) {
    for (const auto& [cell, value] : u.values) cellsA.insert(cell);
  }
  for (const Unit& u : b) {
    for (const auto& [cell, value] : u.values) cellsB.insert(cell);
  }
  UnitComparison out;
  for (uint64_t cell : cellsA) {
    if (cellsB.count(cell)) out.cells.push_back(compareCell(a, b, cell, settings));
  }
  out.range.lo = lo;
  out.range.hi = hi;
  summariseRange(a, b, out.cells, settings, &out.range);
  return out;
}

}  // namespace nccl_roce::verdicts

#include "nccl-tests-integration/sweep/compare.h"

#include <set>

#include "common/strings.h"

namespace nccl_roce::sweep {

namespace {

std::set<uint64_t> sizesOf(const Series& series) {
  std::set<uint64_t> sizes;
  for (const verdicts::Unit& run : series.runs) {
    for (const auto& [size, time] : run.values) sizes.insert(size);
  }
  return sizes;
}

void noteUneven(const Series& series, const char* side, std::vector<std::string>* out) {
  for (uint64_t size : sizesOf(series)) {
    size_t measured = verdicts::valuesAt(series.runs, size).size();
    if (measured < series.runs.size()) {
      out->push_back(formatByteSize(size) + ": " + side + " has " + std::to_string(measured) + " of " +
                     std::to_string(series.runs.size()) + " replicates");
    }
  }
}

void findExtremes(SeriesComparison* out, const CompareOptions& options) {
  const verdicts::CellComparison* worst = nullptr;
  const verdicts::CellComparison* best = nullptr;
  for (const verdicts::CellComparison& c : out->result.cells) {
    if (c.cell < options.rangeLo || c.cell > options.rangeHi || !(c.geomeanA > 0)) continue;
    if (!worst || c.ratio > worst->ratio) worst = &c;
    if (!best || c.ratio < best->ratio) best = &c;
  }
  if (worst) out->worstSize = worst->cell;
  if (best) out->bestSize = best->cell;
}

SeriesComparison compareSeries(const Series& a, const Series& b, const CompareOptions& options) {
  SeriesComparison out;
  out.key = a.key;
  out.runsA = static_cast<int>(a.runs.size());
  out.runsB = static_cast<int>(b.runs.size());
  noteUneven(a, "A", &out.unevenSizes);
  noteUneven(b, "B", &out.unevenSizes);
  std::set<uint64_t> sizesA = sizesOf(a), sizesB = sizesOf(b);
  for (uint64_t size : sizesA) {
    if (!sizesB.count(size)) out.onlyInA.push_back(size);
  }
  for (uint64_t size : sizesB) {
    if (!sizesA.count(size)) out.onlyInB.push_back(size);
  }
  out.result = verdicts::compareUnits(a.runs, b.runs, options.rangeLo, options.rangeHi, options.verdicts);
  findExtremes(&out, options);
  return out;
}

std::string versions(const std::set<std::string>& set) {
  std::string out;
  for (const std::string& v : set) out += (out.empty() ? "" : ", ") + v;
  return out;
}

// Which fields set two series apart, for "nothing compared" messages.
std::string differences(const SeriesKey& a, const SeriesKey& b) {
  std::vector<std::string> fields;
  if (a.collective != b.collective) fields.push_back("collective");
  if (a.type != b.type) fields.push_back("data type");
  if (a.redop != b.redop) fields.push_back("operation");
  if (a.root != b.root) fields.push_back("root");
  if (a.ranks != b.ranks) fields.push_back("rank count");
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == fields.size() ? " and " : ", ") + fields[i];
  }
  return out + (fields.size() == 1 ? " differs" : " differ");
}

void noteOneSided(const SampleSet& a, const SampleSet& b, std::vector<std::string>* notes) {
  for (const auto& [key, series] : a.series) {
    if (b.series.count(key)) continue;
    std::string note = "only A measured " + key.describe();
    for (const auto& [other, unused] : b.series) {
      if (!a.series.count(other)) note += "; B measured " + other.describe() + " (" + differences(key, other) + ")";
    }
    notes->push_back(note);
  }
  for (const auto& [key, series] : b.series) {
    if (!a.series.count(key)) notes->push_back("only B measured " + key.describe());
  }
}

}  // namespace

Comparison compareSweeps(const SampleSet& a, const SampleSet& b, const CompareOptions& options) {
  Comparison out;
  out.options = options;
  for (const std::string& note : a.notes) out.notes.push_back("A: " + note);
  for (const std::string& note : b.notes) out.notes.push_back("B: " + note);
  if (!a.ncclVersions.empty() && !b.ncclVersions.empty() && a.ncclVersions != b.ncclVersions) {
    out.notes.push_back("A ran NCCL " + versions(a.ncclVersions) + " and B ran NCCL " + versions(b.ncclVersions) +
                        ": a difference may come from NCCL's version as much as from what else changed");
  }
  for (const auto& [key, series] : a.series) {
    auto found = b.series.find(key);
    if (found != b.series.end()) out.series.push_back(compareSeries(series, found->second, options));
  }
  noteOneSided(a, b, &out.notes);
  return out;
}

}  // namespace nccl_roce::sweep

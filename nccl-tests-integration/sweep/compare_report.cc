#include "nccl-tests-integration/sweep/compare_report.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "common/log.h"
#include "common/strings.h"
#include "policy/value_range_text.h"

namespace nccl_roce::sweep {

namespace {

using nlohmann::json;

// Times as nccl-tests shows them: 2 decimals below 1000 us, fewer above.
std::string time(double us) {
  return formatFixed(us, us < 1000 ? 2 : us < 10000 ? 1 : 0);
}

std::string percent(double fraction) {
  return formatFixed(std::fabs(fraction) * 100, 1) + "%";
}

std::string interval(const std::optional<verdicts::RatioInterval>& i) {
  return i ? formatFixed(i->low, 3) + "-" + formatFixed(i->high, 3) : "-";
}

std::string summarySentence(const SeriesComparison& s, double confidence) {
  const verdicts::RangeComparison& r = s.result.range;
  std::string range = policy::formatValueRange(policy::ValueRange{r.lo, r.hi}, policy::RangeUnit::kBytes);
  std::string out = "Inference range " + range + " (" + std::to_string(r.cells.size()) + " sizes): ";
  if (!r.interval) return out + "no verdict: " + r.whyNoInterval + ".";
  out += r.verdict == Verdict::kInsufficient ? "no verdict: " + r.whyNoInterval
                                             : describeRatio(r.interval->ratio, r.verdict);
  out += " (geometric mean of B/A " + formatFixed(r.interval->ratio, 3) + ", " + formatFixed(confidence * 100, 0) +
         "% CI " + interval(r.interval) + "); faster at " + std::to_string(r.faster) + ", slower at " +
         std::to_string(r.slower) + ", no difference at " + std::to_string(r.noDifference) + " sizes";
  if (r.insufficient > 0) out += ", " + std::to_string(r.insufficient) + " without a verdict";
  if (!r.unevenCells.empty()) {
    out += "; " + std::to_string(r.unevenCells.size()) + " sizes not measured by every replicate left out of the mean";
  }
  return out + ".";
}

json sizesToJson(const std::vector<uint64_t>& sizes) {
  json out = json::array();
  for (uint64_t s : sizes) out.push_back(s);
  return out;
}

// How sizes are measured, compared and judged: said once, above every series.
std::string methodParagraph(const CompareOptions& o, const std::string& level) {
  const verdicts::Settings& st = o.verdicts;
  std::string out = "Metric: " + std::string(placementName(o.placement)) +
                    " time per size, geometric mean over replicate runs. Ratio = B / A: below 1 means B is faster. ";
  out += "Interval: " + level +
         " Welch t interval on log times, each replicate run one sample (docs/statistics.md). Verdict: faster or "
         "slower when the interval excludes 1";
  if (st.minEffect > 0) out += " and the ratio differs from 1 by at least " + percent(st.minEffect);
  out += "; sizes with fewer than " + std::to_string(st.minUnits) +
         " replicates on a side get none. When nothing differs, each size's verdict and the summary's are wrong at "
         "most ";
  out += percent(1 - st.confidence) +
         " of the time each: in a table of 20 sizes about one may differ by chance, so read the summary. Sizes in "
         "bold are in the inference range.\n";
  return out;
}

// One row per size; sizes in the inference range in bold.
std::string sizeTable(const SeriesComparison& s, const CompareOptions& o, const std::string& level) {
  std::string out = "| size | A (us) | A n | B (us) | B n | B/A | " + level + " CI | verdict |\n";
  out += "|---:|---:|---:|---:|---:|---:|:---:|:---|\n";
  for (const verdicts::CellComparison& z : s.result.cells) {
    bool inRange = z.cell >= o.rangeLo && z.cell <= o.rangeHi;
    std::string size = inRange ? "**" + formatByteSize(z.cell) + "**" : formatByteSize(z.cell);
    std::string verdict = verdictName(z.verdict);
    out += format("| %s | %s | %d | %s | %d | %s | %s | %s |\n", size.c_str(), time(z.geomeanA).c_str(), z.nA,
                  time(z.geomeanB).c_str(), z.nB, formatFixed(z.ratio, 3).c_str(), interval(z.interval).c_str(),
                  verdict.c_str());
  }
  return out;
}

// Why sizes got no verdict: said once per reason below the table, not once per row.
std::string noVerdictNotes(const SeriesComparison& s) {
  std::map<std::string, std::vector<std::string>> whyNot;  // reason -> sizes
  for (const verdicts::CellComparison& z : s.result.cells) {
    if (z.verdict == Verdict::kInsufficient) whyNot[z.whyNoInterval].push_back(formatByteSize(z.cell));
  }
  std::string out;
  for (const auto& [why, sizes] : whyNot) {
    out += "\nNo verdict at " + std::to_string(sizes.size()) + (sizes.size() == 1 ? " size" : " sizes") + " (";
    for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + sizes[i];
    out += "): " + why + ".\n";
  }
  return out;
}

std::string seriesSection(const SeriesComparison& s, const CompareOptions& o, const std::string& level) {
  std::string out = "\n## " + s.key.describe() + "\n\n";
  out += "Replicates: A " + std::to_string(s.runsA) + ", B " + std::to_string(s.runsB) + ".\n\n";
  out += "**" + summarySentence(s, o.verdicts.confidence) + "**\n\n";
  out += sizeTable(s, o, level) + noVerdictNotes(s);
  if (!s.onlyInA.empty() || !s.onlyInB.empty()) {
    out += "\nMeasured on one side only:";
    for (uint64_t size : s.onlyInA) out += " " + formatByteSize(size) + " (A)";
    for (uint64_t size : s.onlyInB) out += " " + formatByteSize(size) + " (B)";
    out += ".\n";
  }
  if (!s.unevenSizes.empty()) {
    out += "\nReplicates with different size lists:\n";
    for (const std::string& note : s.unevenSizes) out += "- " + note + "\n";
  }
  return out;
}

}  // namespace

std::string describeRatio(double ratio, Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "B is " + percent(1 - ratio) + " faster";
    case Verdict::kSlower:
      return "B is " + percent(ratio - 1) + " slower";
    case Verdict::kNoDifference:
      return "no difference beyond the noise";
    case Verdict::kInsufficient:
      break;
  }
  return "no verdict";
}

std::string comparisonToMarkdown(const Comparison& c) {
  std::string level = formatFixed(c.options.verdicts.confidence * 100, 0) + "%";
  std::string out = "# nccl-tests A/B: " + c.labelA + " (A) vs " + c.labelB + " (B)\n\n";
  out += methodParagraph(c.options, level);
  for (const SeriesComparison& s : c.series) out += seriesSection(s, c.options, level);
  if (c.series.empty()) out += "\nNo series was measured on both sides.\n";
  if (!c.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const std::string& note : c.notes) out += "- " + note + "\n";
  }
  return out;
}

namespace {

json intervalJson(const std::optional<verdicts::RatioInterval>& i) {
  return i ? json({i->low, i->high}) : json(nullptr);
}

json optionalSize(const std::optional<uint64_t>& size) {
  return size ? json(*size) : json(nullptr);
}

json sizeJson(const verdicts::CellComparison& z, const CompareOptions& o) {
  json out = {{"size", z.cell},
              {"a", {{"geomean_us", z.geomeanA}, {"replicates", z.nA}}},
              {"b", {{"geomean_us", z.geomeanB}, {"replicates", z.nB}}},
              {"ratio", z.ratio},
              {"ci", intervalJson(z.interval)},
              {"verdict", verdictName(z.verdict)},
              {"in_range", z.cell >= o.rangeLo && z.cell <= o.rangeHi}};
  if (z.verdict == Verdict::kInsufficient) out["why_no_verdict"] = z.whyNoInterval;
  return out;
}

json summaryJson(const SeriesComparison& s) {
  const verdicts::RangeComparison& r = s.result.range;
  json out = {{"range", {r.lo, r.hi}},
              {"sizes", sizesToJson(r.cells)},
              {"uneven_sizes", sizesToJson(r.unevenCells)},
              {"faster", r.faster},
              {"slower", r.slower},
              {"no_difference", r.noDifference},
              {"insufficient", r.insufficient},
              {"geomean_ratio", r.interval ? json(r.interval->ratio) : json(nullptr)},
              {"ci", intervalJson(r.interval)},
              {"verdict", verdictName(r.verdict)},
              {"worst_size", optionalSize(s.worstSize)},
              {"best_size", optionalSize(s.bestSize)}};
  if (r.verdict == Verdict::kInsufficient) out["why_no_verdict"] = r.whyNoInterval;
  return out;
}

}  // namespace

json comparisonToJson(const Comparison& c) {
  const CompareOptions& o = c.options;
  json series = json::array();
  for (const SeriesComparison& s : c.series) {
    json sizes = json::array();
    for (const verdicts::CellComparison& z : s.result.cells) sizes.push_back(sizeJson(z, o));
    series.push_back({{"collective", s.key.collective},
                      {"type", s.key.type},
                      {"redop", s.key.redop},
                      {"root", s.key.root},
                      {"ranks", s.key.ranks},
                      {"replicates", {{"a", s.runsA}, {"b", s.runsB}}},
                      {"sizes", sizes},
                      {"summary", summaryJson(s)},
                      {"only_in_a", sizesToJson(s.onlyInA)},
                      {"only_in_b", sizesToJson(s.onlyInB)},
                      {"uneven_sizes", s.unevenSizes}});
  }
  return {{"schema", kCompareSchema},
          {"a", c.labelA},
          {"b", c.labelB},
          {"options",
           {{"placement", placementName(o.placement)},
            {"interval", "welch-t-log"},
            {"confidence", o.verdicts.confidence},
            {"min_effect", o.verdicts.minEffect},
            {"min_replicates", o.verdicts.minUnits},
            {"range", {o.rangeLo, o.rangeHi}}}},
          {"series", series},
          {"notes", c.notes}};
}

}  // namespace nccl_roce::sweep

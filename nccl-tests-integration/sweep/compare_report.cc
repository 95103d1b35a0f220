#include "nccl-tests-integration/sweep/compare_report.h"

#include <cmath>
#include <cstdio>

#include "common/strings.h"

namespace nccl_roce::sweep {

namespace {

using nlohmann::json;

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// Times as nccl-tests shows them: 2 decimals below 1000 us, fewer above.
std::string time(double us) { return fixed(us, us < 1000 ? 2 : us < 10000 ? 1 : 0); }

std::string percent(double fraction) { return fixed(std::fabs(fraction) * 100, 1) + "%"; }

std::string summarySentence(const SeriesComparison& s, double confidence) {
  const RangeSummary& r = s.summary;
  std::string range = formatByteSize(r.lo) + "-" + formatByteSize(r.hi);
  if (!r.geomeanRatio) {
    return "Inference range " + range + ": no size measured on both sides with enough replicates.";
  }
  std::string out = "Inference range " + range + " (" + std::to_string(r.sizes) + " sizes): " +
                    describeRatio(*r.geomeanRatio, r.verdict) + " (geometric mean of B/A " +
                    fixed(*r.geomeanRatio, 3) + ", " + fixed(confidence * 100, 0) + "% CI " + fixed(*r.ciLow, 3) +
                    "-" + fixed(*r.ciHigh, 3) + "); faster at " + std::to_string(r.faster) + ", slower at " +
                    std::to_string(r.slower) + ", no difference at " + std::to_string(r.noDifference) + " sizes";
  if (r.insufficient > 0) out += ", " + std::to_string(r.insufficient) + " with too few replicates";
  return out + ".";
}

json sizesToJson(const std::vector<uint64_t>& sizes) {
  json out = json::array();
  for (uint64_t s : sizes) out.push_back(s);
  return out;
}

}  // namespace

std::string describeRatio(double ratio, Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "B is " + percent(1 - ratio) + " faster";
    case Verdict::kSlower: return "B is " + percent(ratio - 1) + " slower";
    case Verdict::kNoDifference: return "no difference beyond the noise";
    case Verdict::kInsufficient: break;
  }
  return "too few replicates for a verdict";
}

std::string comparisonToMarkdown(const Comparison& c) {
  const CompareOptions& o = c.options;
  std::string out = "# nccl-tests A/B: " + c.labelA + " (A) vs " + c.labelB + " (B)\n\n";
  out += "Metric: " + std::string(placementName(o.placement)) +
         " time per size, median over replicates. Ratio = B / A: below 1 means B is faster. Interval: " +
         fixed(o.confidence * 100, 0) + "% percentile bootstrap over replicates (" + std::to_string(o.resamples) +
         " resamples, fixed seed). Sizes in bold are in the inference range. Verdict: faster or slower when the interval excludes 1";
  if (o.minEffect > 0) out += " and the ratio differs from 1 by at least " + percent(o.minEffect);
  out += "; sizes with fewer than " + std::to_string(o.minReplicates) + " replicates on a side get no verdict.\n";
  for (const SeriesComparison& s : c.series) {
    out += "\n## " + s.key.describe() + "\n\n";
    out += "Replicates: A " + std::to_string(s.runsA) + ", B " + std::to_string(s.runsB) + ".\n\n";
    out += "**" + summarySentence(s, o.confidence) + "**\n\n";
    out += "| size | A median (us) | A n | B median (us) | B n | B/A | " + fixed(o.confidence * 100, 0) +
           "% CI | verdict |\n";
    out += "|---:|---:|---:|---:|---:|---:|:---:|:---|\n";
    for (const SizeComparison& z : s.sizes) {
      bool inRange = z.size >= o.rangeLo && z.size <= o.rangeHi;
      std::string size = inRange ? "**" + formatByteSize(z.size) + "**" : formatByteSize(z.size);
      out += "| " + size + " | " + time(z.medianA) + " | " + std::to_string(z.nA) + " | " +
             time(z.medianB) + " | " + std::to_string(z.nB) + " | " + fixed(z.ratio, 3) + " | " +
             fixed(z.ciLow, 3) + "-" + fixed(z.ciHigh, 3) + " | " + verdictName(z.verdict) + " |\n";
    }
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
  }
  if (c.series.empty()) out += "\nNo series was measured on both sides.\n";
  if (!c.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const std::string& note : c.notes) out += "- " + note + "\n";
  }
  return out;
}

json comparisonToJson(const Comparison& c) {
  const CompareOptions& o = c.options;
  json series = json::array();
  for (const SeriesComparison& s : c.series) {
    json sizes = json::array();
    for (const SizeComparison& z : s.sizes) {
      sizes.push_back({{"size", z.size},
                       {"a", {{"median_us", z.medianA}, {"replicates", z.nA}}},
                       {"b", {{"median_us", z.medianB}, {"replicates", z.nB}}},
                       {"ratio", z.ratio},
                       {"ci", {z.ciLow, z.ciHigh}},
                       {"verdict", verdictName(z.verdict)},
                       {"in_range", z.size >= o.rangeLo && z.size <= o.rangeHi}});
    }
    const RangeSummary& r = s.summary;
    json summary = {{"range", {r.lo, r.hi}},
                    {"sizes", r.sizes},
                    {"faster", r.faster},
                    {"slower", r.slower},
                    {"no_difference", r.noDifference},
                    {"insufficient", r.insufficient},
                    {"geomean_ratio", r.geomeanRatio ? json(*r.geomeanRatio) : json(nullptr)},
                    {"ci", r.geomeanRatio ? json({*r.ciLow, *r.ciHigh}) : json(nullptr)},
                    {"verdict", verdictName(r.verdict)},
                    {"worst_size", r.worstSize ? json(*r.worstSize) : json(nullptr)},
                    {"best_size", r.bestSize ? json(*r.bestSize) : json(nullptr)}};
    series.push_back({{"collective", s.key.collective},
                      {"type", s.key.type},
                      {"redop", s.key.redop},
                      {"root", s.key.root},
                      {"ranks", s.key.ranks},
                      {"replicates", {{"a", s.runsA}, {"b", s.runsB}}},
                      {"sizes", sizes},
                      {"summary", summary},
                      {"only_in_a", sizesToJson(s.onlyInA)},
                      {"only_in_b", sizesToJson(s.onlyInB)},
                      {"uneven_sizes", s.unevenSizes}});
  }
  return {{"schema", kCompareSchema},
          {"a", c.labelA},
          {"b", c.labelB},
          {"options",
           {{"placement", placementName(o.placement)},
            {"confidence", o.confidence},
            {"resamples", o.resamples},
            {"min_effect", o.minEffect},
            {"min_replicates", o.minReplicates},
            {"range", {o.rangeLo, o.rangeHi}}}},
          {"series", series},
          {"notes", c.notes}};
}

}  // namespace nccl_roce::sweep

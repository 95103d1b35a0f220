#include "fleet/ab_report.h"

#include <algorithm>
#include <cmath>

#include "common/log.h"
#include "common/strings.h"
#include "policy/value_range_text.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

namespace {

std::string bucketName(uint64_t cell) {
  return telemetry::bucketLabel(bucketOfCell(cell));
}

std::string intervalText(const std::optional<verdicts::RatioInterval>& i, const std::string& why) {
  return i ? format("%.3f [%.3f, %.3f]", i->ratio, i->low, i->high) : "- (" + why + ")";
}

// The summary's range as --range and policies write it ("16K..=64M").
std::string rangeText(const AbOptions& o) {
  return policy::formatValueRange(policy::ValueRange{o.rangeLo, o.rangeHi}, policy::RangeUnit::kBytes);
}

std::string summaryLine(const AbReport& r, const ArmComparison& c) {
  const verdicts::RangeComparison& s = c.summary;
  if (c.traffic == "graph") {
    return format(
               "**Summary %s** (%zu size buckets with capture rounds of both arms, %d rounds, over %d "
               "communicator%s; each bucket weighs alike): ",
               rangeText(r.options).c_str(), s.cells.size(), s.interval ? s.interval->nB : 0, c.communicatorsArm,
               c.communicatorsArm == 1 ? "" : "s") +
           intervalText(s.interval, s.whyNoInterval) + ": **" + verdicts::verdictName(s.verdict) + "**\n";
  }
  if (r.design == "switchback") {
    return format("**Summary %s** (%zu size buckets with windows of both arms, over %d communicator%s): ",
                  rangeText(r.options).c_str(), s.cells.size(), c.communicatorsArm,
                  c.communicatorsArm == 1 ? "" : "s") +
           intervalText(s.interval, s.whyNoInterval) + ": **" + verdicts::verdictName(s.verdict) + "**\n";
  }
  return format("**Summary %s** (%zu size buckets, measured by %d of %d control and %d of %d arm communicators): ",
                rangeText(r.options).c_str(), s.cells.size(), c.summaryControl, c.communicatorsControl, c.summaryArm,
                c.communicatorsArm) +
         intervalText(s.interval, s.whyNoInterval) + ": **" + verdicts::verdictName(s.verdict) + "**\n";
}

// "AllReduce", or "AllReduce, timed on the CPU (kernel)" for a comparison of another clock than the GPU's; in a
// switchback, which collectives.
std::string comparedWhat(const ArmComparison& c) {
  std::string what = telemetry::collectiveName(c.collective);
  if (c.traffic == "graph") what += ", replayed from CUDA graphs";
  if (c.traffic == "eager") what += ", eager";
  if (c.clock != TimingClock::kGpu) what += std::string(", timed on the ") + timingClockName(c.clock);
  return what;
}

const char* clockKey(TimingClock clock) {
  switch (clock) {
    case TimingClock::kCpuKernel:
      return "cpu_kernel";
    case TimingClock::kCpuCollective:
      return "cpu_collective";
    case TimingClock::kGpu:
      break;
  }
  return "gpu";
}

nlohmann::ordered_json intervalJson(const std::optional<verdicts::RatioInterval>& i, verdicts::Verdict v,
                                    const std::string& why) {
  nlohmann::ordered_json j;
  j["ratio"] = i ? nlohmann::ordered_json(i->ratio) : nlohmann::ordered_json(nullptr);
  j["low"] = i ? nlohmann::ordered_json(i->low) : nlohmann::ordered_json(nullptr);
  j["high"] = i ? nlohmann::ordered_json(i->high) : nlohmann::ordered_json(nullptr);
  j["verdict"] = verdicts::verdictName(v);
  if (!i) j["why_no_interval"] = why;
  return j;
}

uint64_t countAt(const std::map<uint64_t, uint64_t>& counts, uint64_t cell) {
  auto it = counts.find(cell);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

namespace {

// The line that says what was compared and how.
std::string methodLine(const AbReport& r) {
  std::string out = "Timed communicators per arm:";
  for (const auto& [arm, n] : r.communicatorsPerArm) out += " " + arm + " " + std::to_string(n) + ";";
  if (r.design == "switchback") {
    return out + format(
                     " switchback: every communicator ran every arm in turns; unit: what was drawn, a round of turns "
                     "at capture inside a communicator for collectives replayed from CUDA graphs, a window inside a "
                     "communicator for eager ones, each paired with the reference arm; confidence %.0f%%, minimum "
                     "effect %.1f%%.\n",
                     r.options.settings.confidence * 100, r.options.settings.minEffect * 100);
  }
  return out + format(
                   " unit: the communicator; confidence %.0f%%, minimum effect %.1f%%, at least %llu collectives "
                   "per communicator and bucket.\n",
                   r.options.settings.confidence * 100, r.options.settings.minEffect * 100,
                   static_cast<unsigned long long>(r.options.minCollectives));
}

std::string verdictText(const ArmComparison& c, const verdicts::CellComparison& cell) {
  std::string verdict = verdicts::verdictName(cell.verdict);
  return c.decidedAlike.count(cell.cell) > 0 ? verdict + " (A/A: both decided the same)" : verdict;
}

// Replays of captured collectives: their units, what they compared, and what they could not.
std::string graphTable(const ArmComparison& c) {
  std::string out =
      "| size bucket | graphs | capture rounds | replays compared (control / arm) | unpaired (control / arm) | ratio "
      "[interval] | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const verdicts::CellComparison& cell : c.cells.cells) {
    auto graphs = c.graphs.find(cell.cell);
    out += "| " + bucketName(cell.cell) + " | " + std::to_string(graphs == c.graphs.end() ? 0 : graphs->second) +
           " | " + std::to_string(cell.nB) + " | " + std::to_string(countAt(c.collectivesControl, cell.cell)) + " / " +
           std::to_string(countAt(c.collectivesArm, cell.cell)) + " | " +
           std::to_string(countAt(c.unpairedControl, cell.cell)) + " / " +
           std::to_string(countAt(c.unpairedArm, cell.cell)) + " | " + intervalText(cell.interval, cell.whyNoInterval) +
           " | " + verdictText(c, cell) + " |\n";
  }
  return out;
}

}  // namespace

std::string abToMarkdown(const AbReport& r) {
  std::string out =
      "# nccl-roce ab: " + (r.experiment.empty() ? std::string("arms") : "experiment '" + r.experiment + "'") +
      " against '" + r.control + "'\n\n";
  out += methodLine(r);
  out += "Ratio = arm / control of geometric-mean durations: below 1 means the arm is faster.\n\n";
  for (const std::string& e : r.errors) out += "- **error**: " + e + "\n";
  for (const SkippedInput& s : r.skipped) out += "- skipped: " + s.file + ": " + s.why + "\n";
  for (const std::string& n : r.notes) out += "- note: " + n + "\n";
  for (const ArmComparison& c : r.comparisons) {
    out += std::string("\n## ") + c.arm + " vs " + r.control + ": " + comparedWhat(c) + "\n\n";
    if (c.traffic == "graph") {
      out += graphTable(c);
    } else {
      const bool windows = r.design == "switchback";
      out += std::string("| size bucket | ") + (windows ? "windows" : "communicators (control / arm)") +
             " | collectives (control / arm) | ratio [interval] | verdict |\n|---|---|---|---|---|\n";
      for (const verdicts::CellComparison& cell : c.cells.cells) {
        std::string units =
            windows ? std::to_string(cell.nB) : std::to_string(cell.nA) + " / " + std::to_string(cell.nB);
        out += "| " + bucketName(cell.cell) + " | " + units + " | " +
               std::to_string(countAt(c.collectivesControl, cell.cell)) + " / " +
               std::to_string(countAt(c.collectivesArm, cell.cell)) + " | " +
               intervalText(cell.interval, cell.whyNoInterval) + " | " + verdictText(c, cell) + " |\n";
      }
    }
    out += "\n" + summaryLine(r, c);
  }
  return out;
}

nlohmann::ordered_json abToJson(const AbReport& r) {
  nlohmann::ordered_json j;
  j["schema"] = "nccl-roce.ab/1";
  j["experiment"] = r.experiment;
  j["design"] = r.design;
  j["control"] = r.control;
  j["confidence"] = r.options.settings.confidence;
  j["min_effect"] = r.options.settings.minEffect;
  j["min_collectives"] = r.options.minCollectives;
  j["communicators_per_arm"] = r.communicatorsPerArm;
  j["errors"] = r.errors;
  j["skipped_inputs"] = nlohmann::ordered_json::array();
  for (const SkippedInput& s : r.skipped) j["skipped_inputs"].push_back({{"file", s.file}, {"why", s.why}});
  j["notes"] = r.notes;
  j["comparisons"] = nlohmann::ordered_json::array();
  for (const ArmComparison& c : r.comparisons) {
    nlohmann::ordered_json cj;
    cj["arm"] = c.arm;
    cj["collective"] = telemetry::collectiveName(c.collective);
    cj["clock"] = clockKey(c.clock);
    if (!c.traffic.empty()) {
      cj["traffic"] = c.traffic;
      cj["unit"] = c.traffic == "graph" ? "capture round" : "window";
    }
    cj["buckets"] = nlohmann::ordered_json::array();
    for (const verdicts::CellComparison& cell : c.cells.cells) {
      nlohmann::ordered_json b = intervalJson(cell.interval, cell.verdict, cell.whyNoInterval);
      b["bucket"] = bucketName(cell.cell);
      b["decided_alike"] = c.decidedAlike.count(cell.cell) > 0;
      b["units"] = std::min(cell.nA, cell.nB);
      if (c.traffic == "graph") {
        b["capture_rounds"] = cell.nB;
        auto graphs = c.graphs.find(cell.cell);
        b["graphs"] = graphs == c.graphs.end() ? 0 : graphs->second;
        b["unpaired_collectives_control"] = countAt(c.unpairedControl, cell.cell);
        b["unpaired_collectives_arm"] = countAt(c.unpairedArm, cell.cell);
      } else if (r.design == "switchback") {
        b["windows"] = cell.nB;
      } else {
        b["communicators_control"] = cell.nA;
        b["communicators_arm"] = cell.nB;
      }
      b["collectives_control"] = countAt(c.collectivesControl, cell.cell);
      b["collectives_arm"] = countAt(c.collectivesArm, cell.cell);
      cj["buckets"].push_back(std::move(b));
    }
    nlohmann::ordered_json s = intervalJson(c.summary.interval, c.summary.verdict, c.summary.whyNoInterval);
    s["range"] = rangeText(r.options);
    s["buckets"] = nlohmann::ordered_json::array();
    for (uint64_t cell : c.summary.cells) s["buckets"].push_back(bucketName(cell));
    s["communicators_control"] = c.summaryControl;
    s["communicators_arm"] = c.summaryArm;
    s["communicators_left_out"] = c.leftOutOfSummary;
    if (c.traffic == "graph") s["units"] = c.summary.interval ? c.summary.interval->nB : 0;
    cj["summary"] = std::move(s);
    j["comparisons"].push_back(std::move(cj));
  }
  return j;
}

// One panel per comparison: the ratio per bucket on a log scale around 1, with its interval as a whisker.
std::string abToSvg(const AbReport& r) {
  const int width = 720, panelHeight = 220, left = 60, right = 20, top = 30;
  int height = static_cast<int>(std::max<size_t>(r.comparisons.size(), 1)) * (panelHeight + top) + 20;
  std::string svg = format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height);
  int y0 = 0;
  for (const ArmComparison& c : r.comparisons) {
    svg += format("<text x=\"%d\" y=\"%d\" font-size=\"13\">%s vs %s: %s (ratio, below 1 = faster)</text>\n", left,
                  y0 + 18, c.arm.c_str(), r.control.c_str(), comparedWhat(c).c_str());
    const double lo = std::log(0.8), hi = std::log(1.25);
    auto yOf = [&](double ratio) {
      double v = std::clamp(std::log(ratio), lo, hi);
      return y0 + top + (hi - v) / (hi - lo) * (panelHeight - 30);
    };
    svg += format("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"4\"/>\n", left,
                  yOf(1.0), width - right, yOf(1.0));
    size_t n = c.cells.cells.size();
    for (size_t i = 0; i < n; ++i) {
      const verdicts::CellComparison& cell = c.cells.cells[i];
      double x =
          left + (static_cast<double>(i) + 0.5) * (width - left - right) / static_cast<double>(std::max<size_t>(n, 1));
      svg += format("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, y0 + top + panelHeight - 14,
                    bucketName(cell.cell).c_str());
      if (!cell.interval) continue;
      const char* colour = cell.verdict == verdicts::Verdict::kFaster   ? "#1a7f37"
                           : cell.verdict == verdicts::Verdict::kSlower ? "#cf222e"
                                                                        : "#57606a";
      svg += format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x,
                    yOf(cell.interval->low), x, yOf(cell.interval->high), colour);
      svg += format(
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: %.3f [%.3f, %.3f] %s</title></circle>\n", x,
          yOf(cell.interval->ratio), colour, bucketName(cell.cell).c_str(), cell.interval->ratio, cell.interval->low,
          cell.interval->high, verdicts::verdictName(cell.verdict));
    }
    y0 += panelHeight + top;
  }
  return svg + "</svg>\n";
}

}  // namespace nccl_roce::fleet

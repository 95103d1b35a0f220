// `nccl-roce sweep compare A B`: is B faster than A, per size and over the inference range, with statistics
// over replicates (docs/sweep.md).
#include <cstdio>
#include <memory>

#include "cli/exit_status.h"
#include "cli/sweep_commands.h"
#include "cli/verdict_options.h"
#include "common/directory_walk.h"
#include "common/file.h"
#include "common/strings.h"
#include "nccl-tests-integration/sweep/compare.h"
#include "nccl-tests-integration/sweep/compare_report.h"
#include "nccl-tests-integration/sweep/degenerate_comparison.h"
#include "nccl-tests-integration/sweep/log_files.h"
#include "nccl-tests-integration/sweep/perf_log_json.h"
#include "nccl-tests-integration/sweep/shared_logs.h"
#include "nccl-tests-integration/sweep/svg_chart.h"
#include "policy/value_range_text.h"

namespace nccl_roce::cli {

namespace {

struct CompareCliOptions {
  std::string a, b;
  std::string labelA, labelB;
  std::string placement = "out-of-place";
  std::string range;
  std::string format = "markdown";
  std::string output, jsonPath, svgPath;
  bool failOnSlower = false;
  bool strict = false;
  sweep::CompareOptions compare;
};

std::vector<std::string> pathsOf(const std::string& spec) {
  std::vector<std::string> paths;
  for (std::string_view part : split(spec, ',')) {
    if (!trim(part).empty()) paths.emplace_back(trim(part));
  }
  return paths;
}

// "a.log,b.log" or a directory: the logs of one side; what its directories held that was not read, in `skipped`.
StatusOr<std::vector<sweep::PerfLog>> readSide(const std::string& spec, std::vector<SkippedEntry>* skipped) {
  std::vector<std::string> paths = pathsOf(spec);
  if (paths.empty()) return Status(StatusCode::kInvalidArgument, "no log given");
  return sweep::readPerfLogs(paths, skipped);
}

// What one side ran: each run's forced configuration and NCCL's TUNING lines in the same files (readSide has read
// them once already, so they are there).
sweep::SideConfigurations configurationsOf(const std::string& spec, const std::vector<sweep::PerfLog>& logs) {
  std::vector<inspect::NcclInfoLog> nccl;
  StatusOr<sweep::LogFiles> files = sweep::expandLogPaths(pathsOf(spec));
  for (const FoundFile& file : files.isOk() ? files->files : std::vector<FoundFile>{}) {
    StatusOr<std::string> text = readFoundFile(file, sweep::kMaxLogBytes);
    if (text.isOk()) nccl.push_back(inspect::parseNcclInfoLog(*text, file.path()));
  }
  return sweep::configurationsOf(logs, nccl);
}

std::string labelFor(const std::string& spec) {
  std::string first = spec.substr(0, spec.find(','));
  while (first.size() > 1 && first.back() == '/') first.pop_back();
  size_t slash = first.rfind('/');
  return slash == std::string::npos ? first : first.substr(slash + 1);
}

// Exit statuses: cli/exit_status.h.
int runCompare(CompareCliOptions o) {
  const char* command = "sweep compare";
  if (!parseSizeRange(o.range, &o.compare.rangeLo, &o.compare.rangeHi).isOk()) return kExitUsage;  // CLI11 checked
  o.compare.placement = o.placement == "in-place" ? sweep::Placement::kInPlace : sweep::Placement::kOutOfPlace;
  std::vector<SkippedEntry> skipped;
  StatusOr<std::vector<sweep::PerfLog>> a = readSide(o.a, &skipped);
  StatusOr<std::vector<sweep::PerfLog>> b = readSide(o.b, &skipped);
  for (const auto* side : {&a, &b}) {
    if (!side->isOk()) {
      std::fprintf(stderr, "nccl-roce %s: %s\n", command, side->status().toString().c_str());
      return kExitInputError;
    }
  }
  reportSkipped(skipped, command);
  reportLogIssues(*a, command);
  reportLogIssues(*b, command);
  sweep::SampleSet samplesA = sweep::collectSamples(*a, o.compare.placement);
  sweep::SampleSet samplesB = sweep::collectSamples(*b, o.compare.placement);
  sweep::Comparison comparison = sweep::compareSweeps(samplesA, samplesB, o.compare);
  comparison.labelA = o.labelA.empty() ? labelFor(o.a) : o.labelA;
  comparison.labelB = o.labelB.empty() ? labelFor(o.b) : o.labelB;
  std::string shared = sweep::describeSharedLogs(sweep::sharedLogs(*a, *b), comparison.labelA, comparison.labelB);
  if (!shared.empty()) comparison.notes.insert(comparison.notes.begin(), "warning: " + shared);
  bool flat = false;
  for (const std::string& note :
       sweep::degenerateNotes(comparison, configurationsOf(o.a, *a), configurationsOf(o.b, *b))) {
    comparison.notes.push_back(note);
    if (!startsWith(note, "flat timings")) continue;
    flat = true;
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, note.c_str());
  }

  std::string report = o.format == "json" ? sweep::dumpJson(sweep::comparisonToJson(comparison)) + "\n"
                                          : sweep::comparisonToMarkdown(comparison);
  if (!writeOutput(o.output, report, command)) return kExitUsage;
  if (!o.jsonPath.empty() &&
      !writeOutput(o.jsonPath, sweep::dumpJson(sweep::comparisonToJson(comparison)) + "\n", command)) {
    return kExitUsage;
  }
  if (!o.svgPath.empty() && !writeOutput(o.svgPath, sweep::comparisonToSvg(comparison), command)) return kExitUsage;
  if (!shared.empty()) {
    std::fprintf(stderr, "nccl-roce %s: %s: %s\n", command, o.strict ? "error (--strict: exit 3)" : "warning",
                 shared.c_str());
  }
  if (comparison.series.empty()) {
    std::fprintf(stderr, "nccl-roce %s: no series (collective, type, op, ranks) was measured on both sides\n", command);
    return kExitInputError;
  }
  if (o.strict && !shared.empty()) return kExitInputError;
  if (o.strict && !skipped.empty()) {
    std::fprintf(stderr,
                 "nccl-roce %s: error (--strict: exit 3): %zu entries of the directories given were not read "
                 "(above)\n",
                 command, skipped.size());
    return kExitInputError;
  }
  if (flat && (o.failOnSlower || o.strict)) {
    std::fprintf(stderr,
                 "nccl-roce %s: flat timings (above): exit 3, a gate never passes on timings that measured "
                 "the device's time slices rather than the collectives\n",
                 command);
    return kExitInputError;
  }
  bool slower = false;
  for (const sweep::SeriesComparison& s : comparison.series) {
    const verdicts::RangeComparison& range = s.result.range;
    if (range.verdict == sweep::Verdict::kInsufficient) {
      std::fprintf(stderr, "nccl-roce %s: %s: no verdict over %s: %s\n", command, s.key.describe().c_str(),
                   policy::formatValueRange(policy::ValueRange{range.lo, range.hi}, policy::RangeUnit::kBytes).c_str(),
                   range.whyNoInterval.c_str());
    }
    slower |= range.verdict == sweep::Verdict::kSlower;
  }
  return o.failOnSlower && slower ? kExitSlower : kExitOk;
}

}  // namespace

void addSweepCompareCommand(CLI::App& sweep, CommandContext& context) {
  auto o = std::make_shared<CompareCliOptions>();
  CLI::App* compare = sweep.add_subcommand(
      "compare",
      "A/B two sweeps: per-size ratio of geometric-mean times with t intervals over replicate runs, verdicts, summary");
  compare->add_option("A", o->a, "Baseline: a log, a directory of logs, or a comma-separated list")->required();
  compare->add_option("B", o->b, "Candidate, in the same forms")->required();
  compare->add_option("--label-a", o->labelA, "Name of A in the report (default: its file or directory name)");
  compare->add_option("--label-b", o->labelB, "Name of B in the report");
  compare->add_option("--placement", o->placement, "Which nccl-tests time to compare")
      ->check(CLI::IsMember({"out-of-place", "in-place"}))
      ->capture_default_str();
  addRangeOption(*compare, o->range);
  addVerdictOptions(*compare, o->compare.verdicts, "replicates", 2);
  compare->add_option("--format", o->format, "Report format")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  compare->add_option("-o,--output", o->output, "Write the report here instead of stdout");
  compare->add_option("--json", o->jsonPath, "Also write the JSON document here");
  compare->add_option("--svg", o->svgPath, "Also write an SVG chart of both curves and the ratio here");
  compare->add_flag("--fail-on-slower", o->failOnSlower,
                    "Exit 1 when B is slower over the inference range (for CI gates)");
  compare->add_flag("--strict", o->strict,
                    "Exit 3 when a log is on both sides (a side that duplicates the other, or part of it), which is "
                    "otherwise a warning");
  compare->footer(
      "Ratio = B/A of geometric-mean times: below 1 means B is faster. Each size's verdict and the summary's are "
      "wrong at most 1 - confidence of the time when nothing differs (docs/statistics.md). Exit status (docs/sweep.md, "
      "\"Comparing two sweeps\"): 0 with a report; 1 with --fail-on-slower when B is slower; 2 on a usage error or an "
      "output that cannot be written; 3 on an input error: an unreadable log, no series measured on both sides, and "
      "with --strict a log on both sides, with --strict or --fail-on-slower flat timings (3 outranks 1; the report "
      "is still written).");
  compare->callback([o, &context] { context.exitCode = runCompare(*o); });
}

}  // namespace nccl_roce::cli

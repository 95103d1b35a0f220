// `nccl-roce ab STATS...` or `nccl-roce ab --prometheus URL`: per size bucket and over the inference range, is
// each experiment arm faster or slower than the control arm, from the statistics files (and optionally Inspector
// dumps) of a whole fleet, or from its series in Prometheus (docs/ab-testing.md).
#include <cstdio>
#include <memory>

#include "cli/ab_flat_timings.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/fleet_inputs.h"
#include "cli/sweep_commands.h"
#include "cli/verdict_options.h"
#include "common/strings.h"
#include "fleet/ab_report.h"

namespace nccl_roce::cli {

namespace {

struct AbCliOptions {
  FleetSource source;
  std::string range;
  std::string format = "markdown";
  std::string output, jsonPath, svgPath;
  bool failOnSlower = false;
  fleet::AbOptions ab;
};

// Whether any cell was measured by both sides: a switchback before its first window closes, or with every
// collective unattributed, compares nothing, and a gate on it would pass on nothing.
bool comparesSomething(const fleet::AbReport& report) {
  for (const fleet::ArmComparison& c : report.comparisons) {
    for (const verdicts::CellComparison& cell : c.cells.cells) {
      if (cell.nA > 0 && cell.nB > 0) return true;
    }
  }
  return false;
}

// Exit statuses: cli/exit_status.h.
int runAb(AbCliOptions o) {
  const char* command = "ab";
  if (!parseSizeRange(o.range, &o.ab.rangeLo, &o.ab.rangeHi).isOk()) return kExitUsage;  // CLI11 checked it
  StatusOr<fleet::Fleet> assembled = readFleet(o.source);
  if (!assembled.isOk()) {
    std::fprintf(stderr, "nccl-roce ab: %s\n", assembled.status().message().c_str());
    return kExitInputError;
  }
  printLeftOut(*assembled, command);
  StatusOr<fleet::AbReport> report = fleet::compareArms(*assembled, o.ab);
  if (!report.isOk()) {
    std::fprintf(stderr, "nccl-roce ab: %s\n", report.status().message().c_str());
    return kExitInputError;
  }
  const bool flat = noteFlatTimings(report.value(), command);
  std::string json = fleet::abToJson(*report).dump(1) + "\n";
  if (!writeOutput(o.output, o.format == "json" ? json : fleet::abToMarkdown(*report), command)) return kExitUsage;
  if (!o.jsonPath.empty() && !writeOutput(o.jsonPath, json, command)) return kExitUsage;
  if (!o.svgPath.empty() && !writeOutput(o.svgPath, fleet::abToSvg(*report), command)) return kExitUsage;
  // The report is written either way: it shows what the gate refused.
  if (gateRefusesInputs(*assembled, o.source.strict, o.failOnSlower, command)) return kExitInputError;
  if (!comparesSomething(*report)) {
    std::fprintf(stderr,
                 "nccl-roce ab: nothing to compare: no size bucket was timed under both the control and "
                 "another arm (%s)\n",
                 report->design == "switchback" ? "a switchback whose windows have not closed yet, or whose "
                                                  "collectives were all unattributed; or, for replays of CUDA "
                                                  "graphs, no round of turns captured both arms"
                                                : "no communicator of one side timed any collective");
    return kExitInputError;
  }
  if (flat && (o.failOnSlower || o.source.strict)) {
    std::fprintf(stderr,
                 "nccl-roce ab: flat timings (above): exit 3, a gate never passes on timings that measured "
                 "the device's time slices rather than the collectives\n");
    return kExitInputError;
  }
  bool slower = false;
  for (const fleet::ArmComparison& c : report->comparisons) slower |= c.summary.verdict == verdicts::Verdict::kSlower;
  return o.failOnSlower && slower ? kExitSlower : kExitOk;
}

}  // namespace

void addAbCommand(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<AbCliOptions>();
  CLI::App* ab = app.add_subcommand(
      "ab",
      "A/B a fleet: each experiment arm against the control, per size bucket and over the inference range, "
      "from the statistics files of every pod (communicators are the unit)");
  // Not required() here: `ab fit STATS...` gives ab none (the callback insists when fit is not used).
  addFleetSourceOptions(*ab, o->source,
                        "Statistics files (NCCL_ROCE_STATS), directories of them, quoted globs; Inspector JSON dumps "
                        "as the timing source (STATS or --prometheus is required unless a subcommand is given)");
  ab->add_option("--control", o->ab.control, "The arm every other arm is compared with")->capture_default_str();
  addRangeOption(*ab, o->range);
  ab->add_option("--min-collectives", o->ab.minCollectives,
                 "Collectives a communicator needs in a size bucket to count there")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  addVerdictOptions(*ab, o->ab.settings, "communicators", 2);
  ab->add_option("--format", o->format, "Report format")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  ab->add_option("-o,--output", o->output, "Write the report here instead of stdout");
  ab->add_option("--json", o->jsonPath, "Also write the JSON document here");
  ab->add_option("--svg", o->svgPath, "Also write an SVG chart of the ratios and intervals here");
  ab->add_flag("--fail-on-slower", o->failOnSlower,
               "Exit 1 when any arm is slower than the control over the inference range (rollout gates); exit 3 "
               "instead when the inputs have errors");
  ab->footer(
      "Ratio = arm/control of geometric-mean durations: below 1 means the arm is faster. Each verdict is wrong at "
      "most 1 - confidence of the time when the arm makes no difference (docs/ab-testing.md). Empty files, files "
      "of neither format and a dump's cut-short last record are skipped and listed (with --skip-unreadable, damaged "
      "files too). Exit status "
      "(docs/ab-testing.md, \"Exit status\"): 0 with a report; 1 with --fail-on-slower when an arm is slower; 2 on "
      "a usage error or an output that cannot be written; 3 on an input error: a file that cannot be read or fails "
      "its checks, an unreachable or failing Prometheus, mixed experiments, nothing to compare, and under "
      "--fail-on-slower or --strict a communicator left out, a file skipped or flat timings (--fail-on-slower passes "
      "an empty file and a dump's cut-short last record; 3 outranks 1; the report is still written). `nccl-roce ab fit "
      "--help`: a "
      "policy from the same statistics; `nccl-roce ab plan --help`: how long "
      "an experiment needs.");
  CLI::App* fit = addAbFitCommand(*ab, context);
  addAbPlanCommand(*ab, context);
  ab->require_subcommand(0, 1);
  ab->callback([o, fit, &context, ab] {
    if (!ab->get_subcommands().empty()) return;
    requireOneFleetSource(o->source);
    context.exitCode = runAb(*o);
  });
}

}  // namespace nccl_roce::cli

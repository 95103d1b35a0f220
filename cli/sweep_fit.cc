// `nccl-roce sweep fit PATH...`: a policy from forced-configuration sweeps (docs/sweep.md). The output is
// checked with the tuner's own parser and checks before it is written, so it always lints clean.
#include <cstdio>
#include <memory>

#include "cli/exit_status.h"
#include "cli/generated_policy.h"
#include "cli/sweep_commands.h"
#include "cli/verdict_options.h"
#include "common/strings.h"
#include "nccl-tests-integration/sweep/fit.h"
#include "nccl-tests-integration/sweep/fit_policy_text.h"
#include "nccl-tests-integration/sweep/log_files.h"

namespace nccl_roce::cli {

namespace {

struct FitCliOptions {
  std::vector<std::string> paths;
  std::string output, report;
  std::string placement = "out-of-place";
  int nodes = 0;
  bool quiet = false;
  sweep::FitOptions fit;
};

int runFit(FitCliOptions o) {
  const char* command = "sweep fit";
  o.fit.placement = o.placement == "in-place" ? sweep::Placement::kInPlace : sweep::Placement::kOutOfPlace;
  if (o.nodes > 0) o.fit.nodes = o.nodes;
  std::vector<SkippedEntry> skipped;
  StatusOr<std::vector<sweep::PerfLog>> logs = sweep::readPerfLogs(o.paths, &skipped);
  if (!logs.isOk()) {
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, logs.status().toString().c_str());
    return kExitInputError;
  }
  reportSkipped(skipped, command);
  if (!o.quiet) reportLogIssues(*logs, command);
  sweep::FitResult fit = sweep::fitPolicy(*logs, o.fit);
  if (!o.quiet) {
    for (const std::string& note : fit.notes) std::fprintf(stderr, "nccl-roce %s: %s\n", command, note.c_str());
  }
  if (!fit.ok()) {
    for (const std::string& error : fit.errors) std::fprintf(stderr, "nccl-roce %s: %s\n", command, error.c_str());
    return kExitInputError;
  }
  std::string policy = sweep::fittedPolicyToml(fit, o.fit);
  if (!generatedPolicyLintsClean(policy, command)) return kExitUsage;
  if (!writeOutput(o.output, policy, command)) return kExitUsage;
  if (!o.report.empty() && !writeOutput(o.report, sweep::fitReportMarkdown(fit, o.fit), command)) return kExitUsage;
  if (!o.quiet) {
    for (const sweep::FitSeries& s : fit.series) {
      std::fprintf(stderr, "nccl-roce %s: %s: %zu sizes, %zu buckets:", command, s.key.describe().c_str(),
                   s.sizes.size(), s.buckets.size());
      for (const sweep::FitBucket& b : s.buckets) {
        std::fprintf(stderr, " [%s..%s] %s;", formatByteSize(b.firstMeasured).c_str(),
                     formatByteSize(b.lastMeasured).c_str(), b.choice ? b.choice->describe().c_str() : "default");
      }
      std::fprintf(stderr, "\n");
    }
  }
  return kExitOk;
}

}  // namespace

void addSweepFitCommand(CLI::App& sweep, CommandContext& context) {
  auto o = std::make_shared<FitCliOptions>();
  CLI::App* fit = sweep.add_subcommand(
      "fit", "Fit a tuner policy from forced-config sweeps (NCCL_ALGO x NCCL_PROTO [x channels], plus a default run)");
  fit->add_option("logs", o->paths,
                  "Logs or directories of logs (run-sweep.sh output); the configuration of each "
                  "run is read from the variables it ran with")
      ->required();
  fit->add_option("-o,--output", o->output, "Write the policy here instead of stdout");
  fit->add_option("--report", o->report, "Also write a markdown report of every size's decision here");
  fit->add_option("--name", o->fit.policyName, "Policy name")->capture_default_str();
  fit->add_option("--placement", o->placement, "Which nccl-tests time to fit")
      ->check(CLI::IsMember({"out-of-place", "in-place"}))
      ->capture_default_str();
  addVerdictOptions(*fit, o->fit.verdicts, "replicates", sweep::kFitMinReplicates);
  fit->add_option("--nodes", o->nodes, "Node count the rules match (default: distinct hosts in the logs' device lists)")
      ->check(CLI::Range(1, 100000));
  fit->add_flag("-q,--quiet", o->quiet, "Only errors on stderr");
  fit->footer(
      "Exit status 0 when a policy was written; 2 on a usage error or an output that cannot be written; 3 when a log "
      "cannot be read or the logs cannot give a policy (no default run, no forced run, several data types).");
  fit->callback([o, &context] { context.exitCode = runFit(*o); });
}

}  // namespace nccl_roce::cli

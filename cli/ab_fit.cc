// `nccl-roce ab fit STATS...`: a tuner policy from a live experiment's fleet statistics: per node count and size
// bucket, the arm that beat the control beyond the noise, as the configuration its tuner ran there
// (docs/ab-testing.md, "Fitting a policy from the fleet"). The policy is checked with the tuner's own parser and
// checks before it is written.
#include "fleet/ab_fit.h"

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/fleet_inputs.h"
#include "cli/generated_policy.h"
#include "cli/sweep_commands.h"
#include "cli/verdict_options.h"
#include "fleet/ab_fit_policy_text.h"
#include "fleet/ab_fit_report.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::cli {

namespace {

struct AbFitCliOptions {
  FleetSource source;
  std::string output, report, jsonPath;
  bool quiet = false;
  fleet::AbFitOptions fit;
};

// One line per rule on stderr, so a pipeline's log says what the policy changes.
void summarise(const fleet::AbFit& fit, const char* command) {
  bool anyWinner = false;
  for (const fleet::CellFit& cf : fit.cells) anyWinner |= cf.winner.has_value();
  const char* none = anyWinner ? ": no winner could be written as a rule (see the notes), the policy changes nothing"
                               : ": no arm beat the control beyond the noise, the policy changes nothing";
  std::fprintf(stderr, "nccl-roce %s: %zu rule(s) from %d challenges%s\n", command, fit.rules.size(), fit.challenges,
               fit.rules.empty() ? none : "");
  for (const fleet::FittedRule& r : fit.rules) {
    std::fprintf(stderr, "nccl-roce %s: %s: %s (arm %s)\n", command, fleet::fittedRuleName(r).c_str(),
                 r.configuration.describe().c_str(), r.arm.c_str());
  }
}

// Exit statuses: cli/exit_status.h.
int runAbFit(const AbFitCliOptions& o) {
  const char* command = "ab fit";
  StatusOr<fleet::Fleet> assembled = readFleet(o.source);
  if (assembled.isOk()) printLeftOut(*assembled, command);  // what was skipped, whether a fit follows or not
  StatusOr<fleet::AbFit> fit = assembled.isOk() ? fleet::fitArms(*assembled, o.fit) : assembled.status();
  if (!fit.isOk()) {
    std::fprintf(stderr, "nccl-roce %s: %s\n", command, fit.status().message().c_str());
    return kExitInputError;
  }
  if (!o.quiet) {
    for (const std::string& n : fit->notes) std::fprintf(stderr, "nccl-roce %s: note: %s\n", command, n.c_str());
  }
  // Nothing is written when the gate refuses (ranks that disagree; under --strict anything left out): a pipeline
  // must not roll out a policy fitted on part of the fleet.
  if (gateRefusesInputs(*assembled, o.source.strict, /*failOnSlower=*/false, command)) return kExitInputError;
  std::string policy = fleet::abFitPolicyToml(*fit);
  if (!generatedPolicyLintsClean(policy, command)) return kExitUsage;  // a bug, said as such
  if (!writeOutput(o.output, policy, command)) return kExitUsage;
  if (!o.report.empty() && !writeOutput(o.report, fleet::abFitToMarkdown(*fit), command)) return kExitUsage;
  if (!o.jsonPath.empty() && !writeOutput(o.jsonPath, fleet::abFitToJson(*fit).dump(1) + "\n", command)) {
    return kExitUsage;
  }
  if (!o.quiet) summarise(*fit, command);
  return kExitOk;
}

}  // namespace

CLI::App* addAbFitCommand(CLI::App& ab, CommandContext& context) {
  auto o = std::make_shared<AbFitCliOptions>();
  CLI::App* fit = ab.add_subcommand(
      "fit",
      "Fit a tuner policy from the fleet: per node count and size bucket, the arm that beat the control "
      "beyond the noise, as the configuration its tuner ran there");
  addFleetSourceOptions(*fit, o->source,
                        "Statistics files (NCCL_ROCE_STATS), directories of them, quoted globs; Inspector JSON dumps "
                        "as the timing source (or --prometheus)");
  fit->add_option("-o,--output", o->output, "Write the policy here instead of stdout");
  fit->add_option("--report", o->report, "Also write a markdown report of every challenge here");
  fit->add_option("--json", o->jsonPath, "Also write every challenge as JSON (schema nccl-roce.ab-fit/1) here");
  fit->add_option("--control", o->fit.control, "The arm every other arm is challenged against")->capture_default_str();
  fit->add_option("--policy-name", o->fit.policyName, "The policy's name (default: EXPERIMENT-fit)");
  fit->add_option("--min-collectives", o->fit.minCollectives,
                  "Collectives a communicator needs in a size bucket to count there (at least " +
                      std::to_string(fleet::kAbFitMinCollectives) + ")")
      ->capture_default_str()
      ->check(CLI::Range(fleet::kAbFitMinCollectives, uint64_t{1} << 40));
  addVerdictOptions(*fit, o->fit.settings, "communicators", fleet::kAbFitMinCommunicators);
  fit->add_flag("-q,--quiet", o->quiet, "Only errors and skipped inputs on stderr");
  fit->footer(
      "False wins are held to an expected 1 - confidence of the rules written (Benjamini-Hochberg over every arm x "
      "bucket challenge of the fit); communicators are the unit, and node counts never pool (docs/ab-testing.md). "
      "Exit status (docs/ab-testing.md, \"Exit status\"): 0 when a policy was written (with no rules when no arm "
      "beat the control); 2 on a usage error or an output that cannot be written; 3, with nothing written, on an "
      "input error: a file that cannot be read or fails its checks, an unreachable or failing Prometheus, mixed "
      "experiments, a missing control arm, too few communicators (saying what to collect), and with --strict a "
      "communicator left out or a file skipped.");
  fit->callback([o, &context] {
    requireOneFleetSource(o->source);
    context.exitCode = runAbFit(*o);
  });
  return fit;
}

}  // namespace nccl_roce::cli

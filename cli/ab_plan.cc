// `nccl-roce ab plan`: how long an experiment needs before a verdict, switchback against per communicator, for the
// traffic of one size bucket (docs/ab-testing.md, "Planning an experiment"; verdicts/experiment_plan.h).
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

#include "cli/commands.h"
#include "common/log.h"
#include "common/strings.h"
#include "policy/policy.h"
#include "telemetry/switchback.h"
#include "tuner/switchback_schedule.h"
#include "verdicts/experiment_plan.h"

namespace nccl_roce::cli {

namespace {

struct AbPlanCliOptions {
  std::string design = "both";
  std::vector<uint32_t> weights = {50, 50};
  std::string effect = "5%";
  std::string purpose = "ab";
  uint32_t block = 16, washout = 2;
  double collectivesPerSecond = 0, timedPerSecond = 0;
  verdicts::PlanInputs plan;
};

// "5%" or 0.05.
bool parseEffect(const std::string& text, double* effect) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return false;
  if (std::string(end) == "%")
    value /= 100;
  else if (*end != '\0')
    return false;
  if (!(value > 0 && value < 1)) return false;
  *effect = value;
  return true;
}

// How the switchback's turns fall for these weights: the window and the share of turn boundaries that change arm
// (after which the washout drops collectives), from the tuner's own schedule.
void switchbackShape(const AbPlanCliOptions& o, double* window, double* switchFraction) {
  policy::Experiment e;
  e.name = "plan";
  e.design = policy::ExperimentDesign::kSwitchback;
  e.switchback.block = o.block;
  for (uint32_t w : o.weights) e.arms.push_back({"arm" + std::to_string(e.arms.size()), w, "", {}, nullptr});
  tuner::SwitchbackSchedule schedule(e, 1);
  *window = telemetry::switchbackWindow(o.block, schedule.turnsPerRound());
  const int turns = 10000;
  int switches = 0;
  uint32_t last = schedule.armOf(0);
  for (int t = 1; t < turns; ++t) {
    uint32_t arm = schedule.armOf(static_cast<uint64_t>(t));
    switches += arm != last;
    last = arm;
  }
  *switchFraction = static_cast<double>(switches) / (turns - 1);
}

std::string duration(double seconds) {
  if (seconds < 10) return format("%.1f s", std::ceil(seconds * 10) / 10);
  if (seconds < 120) return format("%.0f s", std::ceil(seconds));
  if (seconds < 7200) return format("%.0f min", std::ceil(seconds / 60));
  if (seconds < 2 * 86400) return format("%.1f h", seconds / 3600);
  return format("%.1f days", seconds / 86400);
}

std::string row(const std::string& design, const std::string& unit, const verdicts::DesignPlan& p,
                const std::string& units) {
  if (!p.feasible) return "| " + design + " | " + unit + " | " + p.why + " | - |\n";
  return "| " + design + " | " + unit + " | " + duration(p.seconds) + " | " + format("%.0f ", p.units) + units + " |\n";
}

int runAbPlan(AbPlanCliOptions o) {
  if (!parseEffect(o.effect, &o.plan.effect)) {
    std::fprintf(stderr, "nccl-roce ab plan: --effect '%s' is not a difference such as 5%% or 0.05\n",
                 o.effect.c_str());
    return 2;
  }
  const double total = std::accumulate(o.weights.begin(), o.weights.end(), 0.0);
  if (o.weights.size() < 2 || total <= 0 || o.weights[0] == 0) {
    std::fprintf(stderr, "nccl-roce ab plan: --weights needs the reference's and at least one arm's, such as 50,50\n");
    return 2;
  }
  o.plan.shares.clear();
  for (uint32_t w : o.weights) o.plan.shares.push_back(w / total);
  o.plan.collectivesPerSecond = o.collectivesPerSecond;
  o.plan.timedPerSecond = std::max(o.timedPerSecond, o.collectivesPerSecond);
  o.plan.minUnits = o.purpose == "fit" ? 10 : 2;
  double switchFraction = 0;
  switchbackShape(o, &o.plan.window, &switchFraction);
  const double perTurn = o.block * o.plan.collectivesPerSecond / o.plan.timedPerSecond;  // of the bucket
  o.plan.kept = 1 - switchFraction * std::min(1.0, o.washout / std::max(perTurn, 1e-9));

  std::string out = format("# nccl-roce ab plan: %s verdict on a %.1f%% difference in one size bucket\n\n",
                           o.purpose == "fit" ? "an `ab fit`" : "an `ab`", o.plan.effect * 100);
  out += format(
      "%d pod%s x %d communicator%s; per communicator %.0f collectives/s in the bucket (%.0f timed in all); arm "
      "shares",
      o.plan.pods, o.plan.pods == 1 ? "" : "s", o.plan.communicatorsPerPod, o.plan.communicatorsPerPod == 1 ? "" : "s",
      o.plan.collectivesPerSecond, o.plan.timedPerSecond);
  for (double s : o.plan.shares) out += format(" %.0f%%", s * 100);
  out += format("; %.0f%% confidence, %.0f%% power; noise %.2f, between communicators %.2f (log-sd).\n\n",
                o.plan.confidence * 100, o.plan.power * 100, o.plan.noise, o.plan.betweenCommunicators);
  out += "| design | unit | time to a verdict | units by then |\n|---|---|---|---|\n";
  if (o.design != "per-communicator") {
    out +=
        row(format("switchback (block %u, washout %u)", o.block, o.washout),
            format("a window of %.0f timed collectives", o.plan.window), verdicts::planSwitchback(o.plan), "windows");
  }
  if (o.design != "switchback") {
    out += row("per communicator", "a communicator", verdicts::planPerCommunicator(o.plan),
               "communicators in the smallest arm");
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void addAbPlanCommand(CLI::App& ab, CommandContext& context) {
  auto o = std::make_shared<AbPlanCliOptions>();
  CLI::App* plan = ab.add_subcommand(
      "plan", "How long an experiment needs before a verdict in one size bucket: switchback against per communicator");
  plan->add_option("--rate", o->collectivesPerSecond,
                   "Collectives per second per communicator in the size bucket, that the tuner can change")
      ->required()
      ->check(CLI::Range(1e-6, 1e9));
  plan->add_option("--timed-rate", o->timedPerSecond,
                   "Collectives per second per communicator the profiler times in all (default: --rate)")
      ->check(CLI::Range(1e-6, 1e9));
  plan->add_option("--effect", o->effect, "The difference to detect, arm / reference - 1")->capture_default_str();
  plan->add_option("--design", o->design, "Which designs to plan")
      ->check(CLI::IsMember({"both", "switchback", "per-communicator"}))
      ->capture_default_str();
  plan->add_option("--weights", o->weights, "The arms' weights, the reference first")
      ->delimiter(',')
      ->capture_default_str();
  plan->add_option("--pods", o->plan.pods, "Pods running the experiment")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  plan->add_option("--communicators-per-pod", o->plan.communicatorsPerPod,
                   "Communicators per pod that carry the bucket's collectives")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  plan->add_option("--block", o->block, "A switchback's turn, in tuner calls")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  plan->add_option("--washout", o->washout, "Collectives a switchback drops after a change of arm")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  plan->add_option("--noise", o->plan.noise, "Log-sd of one collective's duration inside a communicator")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 10.0));
  plan->add_option("--between", o->plan.betweenCommunicators,
                   "Log-sd of communicators' geometric means (their placement)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  plan->add_option("--confidence", o->plan.confidence, "Confidence level of the verdicts")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  plan->add_option("--power", o->plan.power, "The chance of a verdict the plan asks for")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  plan->add_option("--for", o->purpose, "ab (2 units a side) or fit (10)")
      ->check(CLI::IsMember({"ab", "fit"}))
      ->capture_default_str();
  plan->footer(
      "Neighbouring collectives are taken as independent and load as steady: correlated noise and drift make both "
      "designs need longer (docs/ab-testing.md, \"Planning an experiment\"). Exit status 0; 2 on a usage error.");
  plan->callback([o, &context] { context.exitCode = runAbPlan(*o); });
}

}  // namespace nccl_roce::cli

// `nccl-roce ab plan`: how long an experiment needs before a verdict, switchback against per communicator, for the
// traffic of one size bucket (docs/ab-testing.md, "Planning an experiment"; verdicts/experiment_plan.h); with
// --graphs or --stats, what a switchback's verdicts on collectives replayed from CUDA graphs will be, per size
// bucket (cli/ab_plan_graphs.h).
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

#include "cli/ab_plan_graphs.h"
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
  uint32_t block = policy::kAdvisedSwitchbackBlock, washout = policy::kDefaultWashout;
  double collectivesPerSecond = 0, timedPerSecond = 0;
  int pods = 1, communicatorsPerPod = 1, communicators = 0;  // --communicators, when given, instead of the product
  verdicts::PlanInputs plan;
  GraphPlanOptions graphs;
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

std::string plural(int n, const char* one) {
  return format("%d %s%s", n, one, n == 1 ? "" : "s");
}

// The fleet as the operator gave it: the communicators the plan counts, and the pods they came from.
std::string fleet(const AbPlanCliOptions& o) {
  if (o.communicators > 0) return plural(o.communicators, "communicator");
  return format("%s (%s x %d)", plural(o.plan.communicators, "communicator").c_str(), plural(o.pods, "pod").c_str(),
                o.communicatorsPerPod);
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
  o.plan.communicators = o.communicators > 0 ? o.communicators : o.pods * o.communicatorsPerPod;
  if (!o.graphs.graphs.empty() || !o.graphs.stats.empty()) {
    int exitCode = 0;
    std::string text = planGraphs(o.graphs, o.weights, o.block, o.washout, o.plan.communicators, o.plan.effect,
                                  o.plan.confidence, o.plan.power, o.plan.noise, &exitCode);
    if (exitCode != 0) {
      std::fprintf(stderr, "nccl-roce ab plan: %s\n", text.c_str() + std::string("error: ").size());
      return exitCode;
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (o.collectivesPerSecond <= 0) {
    std::fprintf(stderr,
                 "nccl-roce ab plan: --rate is required (collectives per second in the bucket), or --graphs or "
                 "--stats to plan collectives replayed from CUDA graphs\n");
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
  out += format("%s; per communicator %.0f collectives/s in the bucket (%.0f timed in all); arm shares",
                fleet(o).c_str(), o.plan.collectivesPerSecond, o.plan.timedPerSecond);
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
    verdicts::DesignPlan p = verdicts::planPerCommunicator(o.plan);
    if (p.communicatorsNeeded > 0 && o.communicators == 0) {
      const int pods = (p.communicatorsNeeded + o.communicatorsPerPod - 1) / o.communicatorsPerPod;
      p.why += format(" (%s of %d)", plural(pods, "pod").c_str(), o.communicatorsPerPod);
    }
    out += row("per communicator", "a communicator", p, "communicators in the smallest arm");
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

void addGraphPlanOptions(CLI::App& plan, GraphPlanOptions& g) {
  plan.add_option("--graphs", g.graphs,
                  "Plan collectives replayed from CUDA graphs captured at these batch sizes, largest first: vllm "
                  "(1, 2, 4, 8..512 by 8), vllm-current (8..248 by 8, then 256..512 by 16) or a list such as "
                  "1,2,4,8-512/8");
  plan.add_option("--stats", g.stats,
                  "Plan from the capture rounds these statistics files (or directories) of a running switchback "
                  "show, position effects and all");
  plan.add_option("--bytes-per-batch", g.bytesPerBatch,
                  "--graphs: one batch element's bytes in each all-reduce (hidden size x data type)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  plan.add_option("--layers", g.layers, "--graphs: decoder layers per graph, two all-reduces each")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  plan.add_flag("--embedding", g.embedding, "--graphs: each graph starts with the embedding's all-reduce");
  plan.add_option("--warmups", g.warmups, "--graphs: eager forwards before each capture")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  plan.add_option("--step-skew", g.stepSkew, "--graphs: how much longer each graph's first all-reduce takes")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 100.0));
  plan.add_option("--mlp-factor", g.mlpFactor, "--graphs: how much longer the MLP's all-reduces take than attention's")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 100.0));
  plan.add_option("--position-noise", g.positionNoise, "--graphs: log-sd of each graph position's own fixed speed")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  plan.add_option("--replays-per-graph", g.replaysPerGraph, "--graphs: replays of each graph by the verdict")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1e12));
}

}  // namespace

void addAbPlanCommand(CLI::App& ab, CommandContext& context) {
  auto o = std::make_shared<AbPlanCliOptions>();
  CLI::App* plan = ab.add_subcommand(
      "plan", "How long an experiment needs before a verdict in one size bucket: switchback against per communicator");
  plan->add_option("--rate", o->collectivesPerSecond,
                   "Collectives per second per communicator in the size bucket, that the tuner can change (eager "
                   "collectives; required unless --graphs or --stats)")
      ->check(CLI::Range(1e-6, 1e9));
  addGraphPlanOptions(*plan, o->graphs);
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
  CLI::Option* pods = plan->add_option("--pods", o->pods, "Pods running the experiment")
                          ->capture_default_str()
                          ->check(CLI::Range(1, 10000000));
  CLI::Option* perPod =
      plan->add_option("--communicators-per-pod", o->communicatorsPerPod,
                       "Communicators per pod that carry the bucket's collectives, each counted once: in the pod "
                       "that holds its first rank")
          ->capture_default_str()
          ->check(CLI::Range(1, 100000));
  plan->add_option("--communicators", o->communicators,
                   "Instead of --pods and --communicators-per-pod: the communicators carrying the bucket's "
                   "collectives, fleet-wide, each counted once however many pods its ranks span")
      ->check(CLI::Range(1, 100000000))
      ->excludes(pods)
      ->excludes(perPod);
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
      "Without --graphs or --stats: eager collectives of one size bucket, whose neighbours are taken as independent "
      "and load as steady (correlated noise and drift make both designs need longer). With them: collectives "
      "replayed from CUDA graphs, per size bucket (docs/ab-testing.md, \"Planning an experiment\"). Exit status 0; "
      "2 on a usage error; 3 when --stats cannot be read.");
  plan->callback([o, &context] { context.exitCode = runAbPlan(*o); });
}

}  // namespace nccl_roce::cli

// Writes the statistics files of a simulated fleet, one per process (communicator rank), through the plugin's
// own writers (plugin/timing_records.h, plugin/telemetry_file.h, tuner/decision_counts.h), so `nccl-roce ab`
// and `nccl-roce ab fit` can be shown on data with a known truth (docs/ab-testing.md):
//   synthetic_fleet DIR [SEED]          (DIR is created when missing)
// 24 communicators per arm ("control", "candidate"), 2 ranks each, all-reduces of 16 KiB-128 MiB. The truth:
// candidate is 7% faster in the 16K, 32K and 64K buckets, 4% slower in 32M and 64M, the same elsewhere.
//   synthetic_fleet --exploration DIR [SEED]
// Experiment "explore-allreduce" ([experiment.explore], loaded as the plugin loads it): a control where NCCL
// decides (48 communicators) and three generated arms of 24 whose rules force one configuration each over
// 16K..128M ("explore ring/ll", "explore ring/simple", "explore tree/ll"), decided by the tuner's own decide()
// against a cost table where NCCL picks Ring/LL128. The
// truth (tests/calibration/ab_fit_simulation.h, gain 8%): ring-ll is best at 16K-128K, tree-ll at 128K-512K,
// ring-simple at 16M-64M; no arm is faster at 512K-16M and 64M-128M.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>

#include "common/log.h"
#include "common/strings.h"
#include "plugin/telemetry_file.h"
#include "plugin/timing_records.h"
#include "tests/calibration/ab_fit_simulation.h"
#include "tests/calibration/fleet_simulation.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/decision_counts.h"
#include "tuner/policy_digest.h"
#include "tuner/policy_loader.h"

using namespace nccl_roce;

namespace {

constexpr int kAllReduce = 4;

struct Arm {
  std::string name, policyName, policyHash;
  std::shared_ptr<const tuner::Policy> policy;  // null: NCCL decides
  std::unique_ptr<tuner::CompiledPolicy> compiled;
};

struct Experiment {
  std::string name, hash;
  fleet::calibration::FleetSpec spec;
  std::map<std::string, Arm> arms;
  bool decisions = false;  // whether the tuner's decisions are written (exploration)
};

// One rank of one communicator: its profiler tracker and, when written, its tuner's decisions.
struct Process {
  std::shared_ptr<profiler::CollectiveTracker> tracker;
  std::shared_ptr<tuner::DecisionCounts> decisions = std::make_shared<tuner::DecisionCounts>();
  std::string arm;
};

Experiment decodeLl(uint64_t seed) {
  // Identities as the plugin computes them (tuner/policy_digest.h): the control's built-in policy, a candidate
  // policy's text, and the experiment holding both.
  const std::string control = tuner::loadPolicySpec("inference", nullptr)->digest();
  const std::string candidate = tuner::policyDigest("[policy]\nname = \"decode-ll\"\n");
  const std::string experiment = tuner::compositeDigest("[experiment]\nname = \"decode-ll\"\n",
                                                        {{"control", control}, {"candidate", candidate}});
  Experiment e{"decode-ll", experiment, {}, {}, false};
  e.spec.communicatorsPerArm = {{"control", 24}, {"candidate", 24}};
  e.spec.seed = seed;
  for (int bucket : {14, 15, 16}) e.spec.effects["candidate"][bucket] = 0.93;
  for (int bucket : {25, 26}) e.spec.effects["candidate"][bucket] = 1.04;
  e.arms["control"] = Arm{"control", "inference", control, nullptr, nullptr};
  e.arms["candidate"] = Arm{"candidate", "decode-ll", candidate, nullptr, nullptr};
  return e;
}

// The experiment docs/ab-testing.md shows: its generated arms are the simulation's explore arms (and
// explore-tree-simple, which the simulated fleet leaves without communicators).
const char* const kExplorationExperiment = R"([experiment]
name = "explore-allreduce"
[[experiment.arm]]
name = "control"
policy = "nccl"
weight = 70
[experiment.explore]
weight = 30
collective = "allreduce"
size = "16K..128M"
algorithm = ["ring", "tree"]
protocol = ["ll", "simple"]
)";

// The explore arms' policies as the plugin loads them from the experiment, compiled for the fleet's shape.
Experiment exploration(uint64_t seed) {
  auto active = tuner::loadPolicyText(kExplorationExperiment, "explore-allreduce.toml", nullptr);
  if (!active->error().empty() || !active->experiment() || !active->experiment()->explore) std::abort();  // ours
  const tuner::Experiment& experiment = *active->experiment();
  Experiment e{experiment.name, experiment.digest, fleet::calibration::explorationFleet(24, 48, 0.08), {}, true};
  e.spec.seed = seed;
  e.arms["control"] = Arm{"control", "nccl", tuner::loadPolicySpec("nccl", nullptr)->digest(), nullptr, nullptr};
  for (const tuner::ExperimentArm& generated : experiment.explore->arms) {
    if (e.spec.communicatorsPerArm.count(generated.name) == 0) continue;
    const auto& policy = generated.policy;
    e.arms[generated.name] = Arm{generated.name, policy->name, policy->digest, policy,
                                 std::make_unique<tuner::CompiledPolicy>(policy, e.spec.ranks, e.spec.nodes)};
  }
  for (const auto& explore : fleet::calibration::exploreArms()) {
    if (e.arms.count(explore.name) == 0) std::abort();  // the simulation's arms are among the generated ones
  }
  return e;
}

// NCCL's cost table for an all-reduce on 2 nodes: Tree and Ring with every protocol, Ring/LL128 cheapest.
tuner::CostTable costTable() {
  static float entries[tuner::kMaxAlgorithms * tuner::kNumProtocols];
  for (int a = 0; a < tuner::kMaxAlgorithms; ++a) {
    for (int p = 0; p < tuner::kNumProtocols; ++p) entries[a * tuner::kNumProtocols + p] = a <= 1 ? 2.0f : -1.0f;
  }
  entries[fleet::calibration::kControlAlgorithm * tuner::kNumProtocols + fleet::calibration::kControlProtocol] = 1.0f;
  return tuner::CostTable{entries, tuner::kMaxAlgorithms, tuner::kNumProtocols};
}

// One bucket's collectives of one rank: the tuner decides each (as getCollInfo), the profiler times it.
void run(Process& p, const Arm& arm, int bucket, const std::vector<uint64_t>& durations, bool decisions) {
  const tuner::CostTable table = costTable();
  tuner::CallInputs call{kAllReduce, uint64_t{3} << (bucket - 1), 1, 0};
  tuner::Decision decision = arm.compiled ? tuner::decide(*arm.compiled, call, table) : tuner::Decision{};
  int algorithm = 1, protocol = 0;  // what the decode-ll fleet has always recorded
  if (decisions && !tuner::ncclDefaultChoice(table, &algorithm, &protocol)) std::abort();
  if (decision.outcome == tuner::Decision::Outcome::kChosen)
    algorithm = decision.algorithm, protocol = decision.protocol;
  uint64_t clock = 1'000'000;
  for (uint64_t d : durations) {
    if (decisions) p.decisions->record(call, decision, table);
    void* coll = p.tracker->startCollective({kAllReduce, call.bytes, algorithm, protocol, 1}, nullptr);
    p.tracker->stopChannel(p.tracker->startChannel(coll, 0, clock), clock + d);
    clock += d + 1000;
  }
}

// What the tuner reports for an experiment arm (plugin/tuner_plugin.cc statisticsOf).
nlohmann::ordered_json tunerFields(const Experiment& e, const Arm& arm, const Process& p) {
  nlohmann::ordered_json tuner;
  tuner["experiment"] = e.name;
  tuner["experiment_hash"] = e.hash;
  tuner["policy"] = arm.policyName;
  tuner["policy_hash"] = arm.policyHash;
  tuner["arm"] = arm.name;
  if (e.decisions) tuner.update(p.decisions->toJson(arm.policy ? *arm.policy : tuner::Policy()));
  return tuner;
}

Status writeFleet(const Experiment& e, const std::string& dir, size_t* files, size_t* communicators) {
  std::map<std::pair<uint64_t, int>, Process> processes;
  fleet::calibration::forEachMeasurement(e.spec, [&](uint64_t commId, const std::string& arm, int rank, int bucket,
                                                     const std::vector<uint64_t>& durations) {
    Process& p = processes[{commId, rank}];
    if (!p.tracker) p.tracker = std::make_shared<profiler::CollectiveTracker>(profiler::CollectiveTracker::Config{});
    p.arm = arm;
    run(p, e.arms.at(arm), bucket, durations, e.decisions);
  });
  plugin::TelemetryFiles statistics;
  std::set<uint64_t> ids;
  for (const auto& [key, p] : processes) {
    auto [commId, rank] = key;
    const Arm& arm = e.arms.at(p.arm);
    std::string path = dir + format("/pod-%016llx-rank%d.json", static_cast<unsigned long long>(commId), rank);
    plugin::TelemetryEntry entry = statistics.claim(path, commId, "profiler");
    statistics.attachRules(path, entry, [stats = p.decisions, policy = arm.policy](int c, int b, int a, int pr) {
      return policy ? tuner::ruleName(*policy, stats->ruleFor(c, b, a, pr)) : nlohmann::ordered_json(nullptr);
    });
    profiler::CommunicatorTimings labels;
    labels.commId = commId;
    labels.nRanks = e.spec.ranks;
    labels.nNodes = e.spec.nodes;
    labels.rank = rank;
    plugin::TimedCommunicator timed(labels, p.tracker, statistics, path, entry);
    Status written = statistics.report(path, entry, tunerFields(e, arm, p));
    if (written.isOk()) written = statistics.report(path, entry, plugin::timingRecords(timed));
    if (!written.isOk()) return written;
    ids.insert(commId);
  }
  *files = processes.size();
  *communicators = ids.size();
  return Status::ok();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes the statistics files of a simulated fleet with a known truth, through the plugin's own "
               "writers (docs/ab-testing.md, \"Example: a synthetic fleet\")"};
  bool explore = false;
  std::string dir;
  uint64_t seed = 7;
  app.add_flag("--exploration", explore,
               "The exploration experiment 'explore-allreduce' instead of the two-arm experiment 'decode-ll'");
  app.add_option("DIR", dir, "Directory to write into (created)")->required();
  app.add_option("SEED", seed, "Seed of the simulation")->capture_default_str();
  app.footer("Exit status 0 when written; 1 when the files cannot be written; 2 on a usage error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::error_code created;
  std::filesystem::create_directories(dir, created);
  if (created) {
    std::fprintf(stderr, "synthetic_fleet: cannot create %s: %s\n", dir.c_str(), created.message().c_str());
    return 1;
  }
  Experiment e = explore ? exploration(seed) : decodeLl(seed);
  size_t files = 0, communicators = 0;
  Status written = writeFleet(e, dir, &files, &communicators);
  if (!written.isOk()) {
    std::fprintf(stderr, "synthetic_fleet: %s\n", written.toString().c_str());
    return 1;
  }
  std::printf("wrote %zu statistics files (%zu communicators) to %s\n", files, communicators, dir.c_str());
  return 0;
}

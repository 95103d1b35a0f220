// Writes the statistics files of a simulated fleet, one per process (communicator rank), through the plugin's
// own writers (plugin/telemetry_file.h, plugin/communicator_telemetry.h, tuner/decision_counts.h), so `nccl-roce ab`
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
//   synthetic_fleet --switchback DIR [SEED]
// Experiment "sim", design = "switchback", block = 16: one pod's tensor-parallel communicator of 8 ranks (one
// statistics file each) running 24,000 all-reduces over 64K-1M, both arms in turns, through drift, correlated noise,
// stragglers and carry-over (tests/calibration/switchback_simulation.h). The truth: candidate is 4% slower in every
// bucket. --per-arm N gives N such communicators, --ranks R their ranks.
// --metrics MDIR also writes NCCL_ROCE_METRICS textfiles (telemetry/open_metrics.h) from the same trackers, 24
// communicator ranks to a file as a process hosting that many writes it, for Prometheus (tests/prometheus);
// --per-arm N and --ranks R size the fleet (the fleet-scale benchmark: 1250 per arm x 4 ranks, 10,000 files).
//   synthetic_fleet --decode DIR [SEED]
// Experiment "vllm-decode", design = "switchback", block = 4: one pod's tensor-parallel communicator of 2 ranks
// running vLLM's decode: 67 CUDA graphs captured largest first, 20,000 replayed steps and eager prefills, the first
// all-reduce of a step twice as long and the MLP's 10% slower (tests/calibration/capture_simulation.h). The truth:
// candidate is 5% slower everywhere. --per-arm N gives N such communicators, --ranks R their ranks.
// --zeros: each rank of the first communicator times 3 collectives at zero (the clock could not resolve them), which
// `ab` drops and counts, from statistics files and Prometheus alike.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "common/file.h"
#include "common/log.h"
#include "common/strings.h"
#include "plugin/telemetry_file.h"
#include "policy/policy_digest.h"
#include "policy/policy_loader.h"
#include "profiler/collective_tracker.h"
#include "telemetry/nccl_names.h"
#include "telemetry/open_metrics.h"
#include "telemetry/stats_file.h"
#include "tests/calibration/ab_fit_simulation.h"
#include "tests/calibration/capture_simulation.h"
#include "tests/calibration/fleet_simulation.h"
#include "tests/calibration/switchback_simulation.h"
#include "tuner/compiled_policy.h"
#include "tuner/decide.h"
#include "tuner/decision_counts.h"

using namespace nccl_roce;

namespace {

constexpr int kAllReduce = 4;

struct Arm {
  std::string name, policyName, policyHash;
  std::shared_ptr<const policy::Policy> policy;  // null: NCCL decides
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
  // Identities as the plugin computes them (policy/policy_digest.h): the control's built-in policy, a candidate
  // policy's text, and the experiment holding both.
  const std::string control = policy::loadPolicySpec("inference", nullptr)->digest();
  const std::string candidate = policy::policyDigest("[policy]\nname = \"decode-ll\"\n");
  const std::string experiment =
      policy::compositeDigest("[experiment]\nname = \"decode-ll\"\n", {{"control", control}, {"candidate", candidate}});
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
  auto active = policy::loadPolicyText(kExplorationExperiment, "explore-allreduce.toml", nullptr);
  if (!active->error().empty() || !active->experiment() || !active->experiment()->explore) std::abort();  // ours
  const policy::Experiment& experiment = *active->experiment();
  Experiment e{experiment.name, experiment.digest, fleet::calibration::explorationFleet(24, 48, 0.08), {}, true};
  e.spec.seed = seed;
  e.arms["control"] = Arm{"control", "nccl", policy::loadPolicySpec("nccl", nullptr)->digest(), nullptr, nullptr};
  for (const policy::ExperimentArm& generated : experiment.explore->arms) {
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
  static float entries[telemetry::kMaxAlgorithms * telemetry::kNumProtocols];
  for (int a = 0; a < telemetry::kMaxAlgorithms; ++a) {
    for (int p = 0; p < telemetry::kNumProtocols; ++p)
      entries[a * telemetry::kNumProtocols + p] = a <= 1 ? 2.0f : -1.0f;
  }
  entries[fleet::calibration::kControlAlgorithm * telemetry::kNumProtocols + fleet::calibration::kControlProtocol] =
      1.0f;
  return tuner::CostTable{entries, telemetry::kMaxAlgorithms, telemetry::kNumProtocols};
}

// One bucket's collectives of one rank: the tuner decides each (as getCollInfo), the profiler times it.
void run(Process& p, const Arm& arm, int bucket, const std::vector<uint64_t>& durations, bool decisions) {
  const tuner::CostTable table = costTable();
  tuner::CallInputs call{kAllReduce, uint64_t{3} << (bucket - 1), 1, 0};
  tuner::Decision decision = arm.compiled ? tuner::decide(*arm.compiled, call, table) : tuner::Decision{};
  int algorithm = 1, protocol = 0;  // what the decode-ll fleet has always recorded
  if (decisions && !tuner::ncclDefaultChoice(table, tuner::SelectionRule::kLastPlainMinimum, &algorithm, &protocol))
    std::abort();
  if (decision.outcome == tuner::Decision::Outcome::kChosen)
    algorithm = decision.algorithm, protocol = decision.protocol;
  uint64_t clock = 1'000'000;
  for (uint64_t d : durations) {
    if (decisions) p.decisions->record(call, decision, algorithm, protocol);
    // The Coll event as NCCL names it: the bytes as ncclInt8 elements, the tuner's names for NCCL's.
    profiler::CollEvent event{
        "AllReduce", "ncclInt8", telemetry::algorithmName(algorithm), telemetry::protocolName(protocol), call.bytes,
        1,           nullptr};
    void* coll = p.tracker->startCollective(event);
    p.tracker->stopChannel(p.tracker->startChannel(coll, 0, clock), clock + d);
    clock += d + 1000;
  }
}

// What the tuner reports for an experiment arm (plugin/tuner_plugin.cc identityOf and reportNow).
plugin::TunerReport tunerReport(const Experiment& e, const Arm& arm, const Process& p) {
  plugin::TunerReport tuner;
  tuner.nRanks = e.spec.ranks;
  tuner.nNodes = e.spec.nodes;
  tuner.identity.experiment = e.name;
  tuner.identity.experimentHash = e.hash;
  tuner.identity.policy = arm.policyName;
  tuner.identity.policyHash = arm.policyHash;
  tuner.identity.arm = arm.name;
  tuner.decisions = p.decisions->snapshot(arm.policy.get());
  return tuner;
}

// Metrics textfiles of 24 processes' communicators each, as a process hosting many communicators writes one
// (plugin/metrics_textfile.h): few enough files for `promtool check metrics` to check each in a test.
struct Textfiles {
  static constexpr size_t kCommunicatorsPerFile = 24;
  std::string dir, prefix;
  std::vector<telemetry::CommunicatorSnapshot> pending;
  int written = 0;

  Status add(telemetry::CommunicatorSnapshot timings) {
    pending.push_back(std::move(timings));
    return pending.size() < kCommunicatorsPerFile ? Status::ok() : flush();
  }
  Status flush() {
    if (pending.empty() || dir.empty()) return Status::ok();
    std::string pod = format("pod-%d", written++);
    Status status =
        writeFileAtomically(dir + "/" + prefix + "-" + pod + ".prom",
                            telemetry::renderTextfile({"synthetic", pod, format("node-%d", written / 2), 1}, pending));
    pending.clear();
    return status;
  }
};

// Where the fleet is written: each process's statistics file, and metrics textfiles when `metrics.dir` is set.
// One TelemetryFiles for the whole fleet: every file's header names this process, so its entries must be numbered
// apart (readers count an entry "host/pid/number" once).
struct Output {
  std::string stats;
  Textfiles metrics;
  plugin::TelemetryFiles statistics;
};

// One communicator's ranks, each as its own process would write them: the tuner's and the profiler's entry of its
// statistics file, and the textfile NCCL_ROCE_METRICS gets from the same tracker (plugin/metrics_textfile.h).
Status writeCommunicator(const Experiment& e, uint64_t commId, const std::map<int, Process>& ranks, Output& out) {
  plugin::TelemetryFiles& statistics = out.statistics;
  for (const auto& [rank, p] : ranks) {
    const Arm& arm = e.arms.at(p.arm);
    std::string name = format("pod-%016llx-rank%d", static_cast<unsigned long long>(commId), rank);
    std::string path = out.stats + "/" + name + ".json";
    plugin::CommunicatorShape shape{e.spec.ranks, e.spec.nodes};
    plugin::TelemetryEntry entry = statistics.claim(path, commId, plugin::Producer::kTuner, shape);
    statistics.claim(path, commId, plugin::Producer::kProfiler, shape);  // joins the tuner's entry, as in the plugin
    entry.telemetry->finish(tunerReport(e, arm, p));
    entry.telemetry->finish(plugin::ProfilerReport{e.spec.ranks, e.spec.nodes, rank, p.tracker->timings()});
    // The textfile's figures, as the profiler's finalize takes them.
    telemetry::CommunicatorSnapshot metrics = entry.telemetry->snapshot();
    Status written = statistics.finish(path, entry, plugin::Producer::kTuner);
    if (written.isOk()) written = statistics.finish(path, entry, plugin::Producer::kProfiler);
    if (written.isOk() && !out.metrics.dir.empty()) written = out.metrics.add(std::move(metrics));
    if (!written.isOk()) return written;
  }
  return Status::ok();
}

// Simulates and writes one communicator at a time: a tracker holds 0.65 MiB, and a fleet can have thousands.
Status writeFleet(const Experiment& e, bool zeros, Output& out, size_t* files, size_t* communicators) {
  std::map<int, Process> ranks;
  uint64_t current = 0;
  Status status = Status::ok();
  auto flush = [&] {
    if (ranks.empty() || !status.isOk()) return;
    status = writeCommunicator(e, current, ranks, out);
    *files += ranks.size();
    ++*communicators;
    ranks.clear();
  };
  fleet::calibration::forEachMeasurement(
      e.spec, [&](uint64_t commId, const std::string& arm, int rank, int bucket, std::vector<uint64_t> durations) {
        if (commId != current) flush();
        if (zeros && *communicators == 0 && ranks.count(rank) == 0) std::fill_n(durations.begin(), 3, 0);
        current = commId;
        Process& p = ranks[rank];
        if (!p.tracker)
          p.tracker = std::make_shared<profiler::CollectiveTracker>(profiler::CollectiveTracker::Config{});
        p.arm = arm;
        run(p, e.arms.at(arm), bucket, durations, e.decisions);
      });
  flush();
  return status.isOk() ? out.metrics.flush() : status;
}

// --switchback: the files of `communicators` (default 1) communicators of `ranks` (default 8); --decode: vLLM's
// decode (default 2 ranks). With `metrics.dir`, the textfiles of the same entries, as each process renders its
// communicators' snapshots (the statistics file holds them whole).
int writeSwitchback(const std::string& dir, Textfiles& metrics, uint64_t seed, int communicators, int ranks,
                    bool decode) {
  std::vector<fleet::calibration::SimulatedFile> files;
  fleet::calibration::SwitchbackSpec spec;
  spec.communicators = communicators > 0 ? communicators : 1;
  if (decode) {
    fleet::calibration::CaptureSpec graphs;
    graphs.communicators = spec.communicators;
    graphs.ranks = ranks > 0 ? ranks : 2;
    graphs.stepSkew = 2.0;
    graphs.mlpFactor = 1.1;
    graphs.candidateEffect = 1.05;
    graphs.seed = seed;
    files = fleet::calibration::simulateCaptureFiles(graphs);
  } else {
    spec.ranks = ranks > 0 ? ranks : 8;
    spec.collectives = 24000;
    spec.candidateEffect = 1.04;
    spec.seed = seed;
    files = fleet::calibration::simulateSwitchbackFiles(spec);
  }
  metrics.prefix = decode ? "vllm-decode" : "sim";
  for (const fleet::calibration::SimulatedFile& f : files) {
    Status written = writeFileAtomically(dir + "/" + f.name, f.text);
    StatusOr<telemetry::StatsFile> parsed = telemetry::parseStatsFile(f.text, f.name);
    if (written.isOk() && !parsed.isOk()) written = parsed.status();
    for (size_t i = 0; written.isOk() && !metrics.dir.empty() && i < parsed->entries.size(); ++i) {
      written = metrics.add(parsed->entries[i].comm);
    }
    if (!written.isOk()) {
      std::fprintf(stderr, "synthetic_fleet: %s\n", written.toString().c_str());
      return 1;
    }
  }
  if (Status flushed = metrics.flush(); !flushed.isOk()) {
    std::fprintf(stderr, "synthetic_fleet: %s\n", flushed.toString().c_str());
    return 1;
  }
  std::printf("wrote %zu statistics files (%d communicator%s) to %s\n", files.size(), spec.communicators,
              spec.communicators == 1 ? "" : "s", dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Writes the statistics files of a simulated fleet with a known truth, through the plugin's own "
      "writers (docs/ab-testing.md, \"Example: a synthetic fleet\")"};
  bool explore = false;
  Output out;
  int perArm = 0, ranks = 0;
  bool zeros = false, switchback = false, decode = false;
  uint64_t seed = 7;
  app.add_flag("--exploration", explore,
               "The exploration experiment 'explore-allreduce' instead of the two-arm experiment 'decode-ll'");
  app.add_flag("--switchback", switchback, "One pod's switchback experiment 'sim' instead of 'decode-ll'")
      ->excludes("--exploration");
  app.add_flag("--decode", decode,
               "One pod's switchback 'vllm-decode' over vLLM's CUDA-graph decode instead of 'decode-ll'")
      ->excludes("--exploration")
      ->excludes("--switchback");
  app.add_option("DIR", out.stats, "Directory to write the statistics files into (created)")->required();
  app.add_option("SEED", seed, "Seed of the simulation")->capture_default_str();
  app.add_option("--metrics", out.metrics.dir,
                 "Also write NCCL_ROCE_METRICS textfiles here (created), one per 24 communicator ranks");
  app.add_option("--per-arm", perArm,
                 "Communicators per arm (decode-ll: 24 each; exploration: 24 per generated arm, twice that control)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--ranks", ranks, "Ranks per communicator (2)")->check(CLI::Range(1, 1024));
  app.add_flag("--zeros", zeros, "Each rank of the first communicator times 3 collectives of its first bucket at zero");
  app.footer("Exit status 0 when written; 1 when the files cannot be written; 2 on a usage error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const std::string& dir : {out.stats, out.metrics.dir}) {
    std::error_code created;
    if (!dir.empty()) std::filesystem::create_directories(dir, created);
    if (created) {
      std::fprintf(stderr, "synthetic_fleet: cannot create %s: %s\n", dir.c_str(), created.message().c_str());
      return 1;
    }
  }
  if (switchback || decode) return writeSwitchback(out.stats, out.metrics, seed, perArm, ranks, decode);
  Experiment e = explore ? exploration(seed) : decodeLl(seed);
  out.metrics.prefix = e.name;
  if (perArm > 0) {
    for (auto& [arm, n] : e.spec.communicatorsPerArm) n = explore && arm == "control" ? 2 * perArm : perArm;
  }
  if (ranks > 0) e.spec.ranks = ranks;
  size_t files = 0, communicators = 0;
  Status written = writeFleet(e, zeros, out, &files, &communicators);
  if (!written.isOk()) {
    std::fprintf(stderr, "synthetic_fleet: %s\n", written.toString().c_str());
    return 1;
  }
  std::printf("wrote %zu statistics files (%zu communicators) to %s%s%s\n", files, communicators, out.stats.c_str(),
              out.metrics.dir.empty() ? "" : " and their metrics textfiles to ", out.metrics.dir.c_str());
  return 0;
}

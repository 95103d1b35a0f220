#include "tests/calibration/switchback_simulation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "fleet/telemetry_reader.h"
#include "profiler/switchback_timing.h"
#include "telemetry/log_histogram.h"
#include "telemetry/stats_file.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::fleet::calibration {

namespace {

constexpr int kAllReduce = 4;
constexpr int kFirstBucket = 16;  // 64K

// Each arm's name and what its rules run (algorithm, protocol): the control, the candidate, then generated arms.
struct SimulatedArm {
  const char* name;
  int algorithm, protocol;
};
const SimulatedArm kArms[] = {
    {"control", 1, 1}, {"candidate", 1, 0}, {"explore tree/ll", 0, 0}, {"explore ring/simple", 1, 2}};

policy::Experiment experimentOf(const SwitchbackSpec& spec) {
  policy::Experiment e;
  e.name = "sim";
  e.digest = "sha256:" + std::string(64, 'c');
  e.design = policy::ExperimentDesign::kSwitchback;
  e.switchback.block = spec.block;
  for (int a = 0; a < spec.arms; ++a) {
    policy::ExperimentArm arm;
    arm.name = kArms[a].name;
    arm.weight = 10;
    e.arms.push_back(arm);
  }
  return e;
}

// What one rank of one communicator records.
struct RankRecords {
  std::unique_ptr<profiler::SwitchbackTiming> switchback;
  std::map<int, telemetry::LogHistogram> byBucket;  // the per-communicator design's timings
  std::map<std::pair<int, int>, uint64_t> calls;    // (bucket, arm) -> tuner calls
};

// The latency model's time for collective `i`, arm `arm`, without the rank's own noise.
class LatencyModel {
 public:
  LatencyModel(const SwitchbackSpec& spec, std::mt19937_64& random)
      : spec_(spec),
        random_(random),
        lastArm_(static_cast<size_t>(spec.buckets), -1),
        carryLeft_(static_cast<size_t>(spec.buckets), 0) {
    placement_ = std::exp(spec.betweenCommunicators * normal_(random));
  }

  double microseconds(uint64_t i, int bucket, int arm) {
    const double shock = std::sqrt(1 - spec_.autocorrelation * spec_.autocorrelation) * spec_.noise * normal_(random_);
    ar_ = spec_.autocorrelation * ar_ + shock;
    double t = (20.0 + 10.0 * bucket) * placement_ * std::exp(ar_);
    t *= 1 + spec_.drift * std::sin(6 * M_PI * static_cast<double>(i) / static_cast<double>(spec_.collectives));
    if (uniform_(random_) < spec_.stragglerRate) t *= spec_.stragglerFactor;
    if (lastArm_[static_cast<size_t>(bucket)] != arm) {
      bool pays = !spec_.carryOverIntoCandidate || arm != 0;
      carryLeft_[static_cast<size_t>(bucket)] =
          lastArm_[static_cast<size_t>(bucket)] >= 0 && pays ? spec_.carryOverLength : 0;
      lastArm_[static_cast<size_t>(bucket)] = arm;
    }
    if (carryLeft_[static_cast<size_t>(bucket)] > 0) {
      --carryLeft_[static_cast<size_t>(bucket)];
      t *= 1 + spec_.carryOver;
    }
    return t * spec_.effect(arm, bucket);
  }

 private:
  const SwitchbackSpec& spec_;
  std::mt19937_64& random_;
  std::normal_distribution<double> normal_;
  std::uniform_real_distribution<double> uniform_;
  double placement_ = 1, ar_ = 0;
  std::vector<int> lastArm_;
  std::vector<uint32_t> carryLeft_;
};

std::shared_ptr<telemetry::SwitchbackPlan> planOf(const SwitchbackSpec& spec, uint32_t turnsPerRound) {
  auto plan = std::make_shared<telemetry::SwitchbackPlan>();
  for (int a = 0; a < spec.arms; ++a) plan->arms.push_back(kArms[a].name);
  plan->block = spec.block;
  plan->washout = spec.washout;
  plan->window = telemetry::switchbackWindow(spec.block, turnsPerRound);
  plan->armMap = std::make_shared<telemetry::ArmMap>();
  return plan;
}

// What the rank's tuner and profiler report, as the statistics file's snapshot.
telemetry::CommunicatorSnapshot snapshotOf(const SwitchbackSpec& spec, uint64_t commId, int communicator, int rank,
                                           const RankRecords& r) {
  telemetry::CommunicatorSnapshot s;
  s.commId = commId;
  s.nRanks = spec.ranks;
  s.nNodes = spec.ranks;
  s.rank = rank;
  telemetry::PolicyIdentity id;
  id.experiment = "sim";
  id.experimentHash = "sha256:" + std::string(64, 'c');
  const int own = communicator % spec.arms;  // the per-communicator design's arm
  id.policy = spec.switchback ? "sim" : kArms[own].name;
  id.policyHash = "sha256:" + std::string(64, spec.switchback ? 'c' : static_cast<char>('a' + own));
  id.arm = spec.switchback ? "" : kArms[own].name;
  id.design = spec.switchback ? "switchback" : "";
  s.identity = id;
  s.decisions.emplace();
  for (const auto& [where, calls] : r.calls) {
    const SimulatedArm& arm = kArms[where.second];
    s.decisions->push_back(
        {telemetry::cellKey(kAllReduce, uint64_t{1} << (kFirstBucket + where.first), arm.algorithm, arm.protocol, 0),
         telemetry::DecisionSource::kRule, arm.name, spec.switchback ? arm.name : "", calls});
  }
  std::sort(s.decisions->begin(), s.decisions->end());
  s.timings.emplace();
  for (const auto& [bucket, h] : r.byBucket) {
    telemetry::KeyTimings k;
    k.key = telemetry::cellKey(kAllReduce, uint64_t{1} << (kFirstBucket + bucket), kArms[own].algorithm,
                               kArms[own].protocol, 0);
    k.key.source = telemetry::TimingSource::kKernelGpu;
    k.histogram = h;
    s.timings->keys.push_back(k);
  }
  if (r.switchback) {
    std::vector<profiler::SwitchbackTiming::Pair> pairs;
    r.switchback->copyPairs(0, r.switchback->pairs(), &pairs);
    s.timings->switchback = profiler::SwitchbackTiming::timingsOf(
        *r.switchback->plan(), pairs, r.switchback->windowsClosed(), r.switchback->unattributed());
    s.timings->switchback->capturesTracked = true;  // NCCL 2.28+ tells captures apart; this traffic has none
  }
  return s;
}

// One communicator's ranks, timed: the statistics file each rank's process writes.
void simulateCommunicator(const SwitchbackSpec& spec, int communicator, std::mt19937_64& random,
                          std::vector<SimulatedFile>& out) {
  const uint64_t commId = spec.seed * 1000003ull + static_cast<uint64_t>(communicator) + 1;
  policy::Experiment experiment = experimentOf(spec);
  tuner::SwitchbackSchedule schedule(experiment, commId);
  std::vector<RankRecords> ranks(static_cast<size_t>(spec.ranks));
  for (RankRecords& r : ranks) {
    if (spec.switchback)
      r.switchback = std::make_unique<profiler::SwitchbackTiming>(planOf(spec, schedule.turnsPerRound()));
  }
  LatencyModel model(spec, random);
  std::normal_distribution<double> normal;
  for (uint64_t i = 0; i < spec.collectives; ++i) {
    const int bucket = static_cast<int>(i % static_cast<uint64_t>(spec.buckets));
    const int arm = spec.switchback ? static_cast<int>(schedule.armOf(i / spec.block)) : communicator % spec.arms;
    const double us = model.microseconds(i, bucket, arm);
    for (RankRecords& r : ranks) {
      auto ns = static_cast<uint64_t>(us * std::exp(0.02 * normal(random)) * 1000);
      ++r.calls[{bucket, arm}];
      if (r.switchback) {
        r.switchback->record(kAllReduce, kFirstBucket + bucket, arm, telemetry::LogHistogram::binOf(ns));
      } else {
        r.byBucket[bucket].record(ns);
      }
    }
  }
  for (int rank = 0; rank < spec.ranks; ++rank) {
    telemetry::StatsEntry entry{1, false, 1772368496789,
                                snapshotOf(spec, commId, communicator, rank, ranks[static_cast<size_t>(rank)])};
    std::string text = telemetry::renderStatsEntry(entry);
    const std::string host = "pod-" + std::to_string(communicator);
    telemetry::StatsFileHeader header{telemetry::kStatsSchema, host, 100 + rank};
    out.push_back({host + "." + std::to_string(100 + rank) + ".json", telemetry::renderStatsFile(header, {&text})});
  }
}

}  // namespace

std::vector<SimulatedFile> simulateSwitchbackFiles(const SwitchbackSpec& spec) {
  std::mt19937_64 random(spec.seed);
  std::vector<SimulatedFile> out;
  for (int c = 0; c < spec.communicators; ++c) simulateCommunicator(spec, c, random, out);
  return out;
}

std::vector<CommunicatorRecord> simulateSwitchbackFleet(const SwitchbackSpec& spec) {
  std::vector<CommunicatorRecord> out;
  for (const SimulatedFile& file : simulateSwitchbackFiles(spec)) {
    StatusOr<std::vector<CommunicatorRecord>> records = parseTelemetryFile(file.text, file.name);
    if (records.isOk()) out.insert(out.end(), records->begin(), records->end());
  }
  return out;
}

}  // namespace nccl_roce::fleet::calibration

#include "tests/calibration/capture_simulation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "fleet/ab_comparison.h"
#include "fleet/fleet.h"
#include "fleet/telemetry_reader.h"
#include "profiler/capture_timing.h"
#include "profiler/switchback_timing.h"
#include "telemetry/log_histogram.h"
#include "telemetry/size_bucket.h"
#include "telemetry/stats_file.h"
#include "tuner/switchback_schedule.h"

namespace nccl_roce::fleet::calibration {

namespace {

constexpr int kAllReduce = 4;
constexpr uint64_t kBytesPerToken = 16 << 10;  // a bf16 hidden state of 8192, one token's share of an all-reduce

// The arms and what each decides for every all-reduce (Ring with LL128, Ring with LL), so that every timed
// collective says whose it was.
struct SimulatedArm {
  const char* name;
  int algorithm, protocol;
};
const SimulatedArm kArms[] = {{"control", 1, 1}, {"candidate", 1, 0}};

policy::Experiment experimentOf(const CaptureSpec& spec) {
  policy::Experiment e;
  e.name = "vllm-decode";
  e.digest = "sha256:" + std::string(64, 'd');
  e.design = policy::ExperimentDesign::kSwitchback;
  e.switchback.block = spec.block;
  e.switchback.washout = spec.washout;
  for (const SimulatedArm& a : kArms) {
    policy::ExperimentArm arm;
    arm.name = a.name;
    arm.weight = 50;
    e.arms.push_back(arm);
  }
  return e;
}

int allReducesPerStep(const CaptureSpec& spec) {
  return 2 * spec.layers + (spec.embedding ? 1 : 0);
}

// The position effects of one run, as factors on the log scale, position by position.
std::vector<double> positionEffects(const CaptureSpec& spec, std::mt19937_64& random) {
  std::normal_distribution<double> normal;
  const int n = allReducesPerStep(spec), first = spec.embedding ? 1 : 0;
  std::vector<double> effect(static_cast<size_t>(n), 0.0);
  for (int p = 0; p < n; ++p) {
    double x = 0;
    if (p == 0) x += std::log(spec.stepSkew);
    if (p >= first && (p - first) % 2 == 1) x += std::log(spec.mlpFactor);
    x += spec.periodicLoad * std::sin(2 * M_PI * p / spec.period);
    if (p % spec.everyNth == spec.everyNth - 1) x += std::log(spec.everyNthFactor);
    x += spec.trend * p / n;
    x += spec.positionNoise * normal(random);
    effect[static_cast<size_t>(p)] = x;
  }
  return effect;
}

// One rank's tuner calls and profiler records.
struct RankRecords {
  std::unique_ptr<profiler::SwitchbackTiming> windows;
  profiler::CaptureTiming captures;
  std::map<std::pair<int, int>, uint64_t> calls;  // (bucket, arm) -> tuner calls
};

// The latency model of one communicator's stream of collectives.
class Latency {
 public:
  Latency(const CaptureSpec& spec, std::mt19937_64& random) : spec_(spec), random_(random) {
    placement_ = spec.betweenCommunicators * normal_(random);
  }
  // Log of microseconds, before each rank's own noise.
  double logMicroseconds(uint64_t bytes, int arm, double position, uint64_t step) {
    ar_ = spec_.autocorrelation * ar_ +
          std::sqrt(1 - spec_.autocorrelation * spec_.autocorrelation) * spec_.noise * normal_(random_);
    double t = std::log(20.0 + static_cast<double>(bytes) / 50e3) + placement_ + ar_ + position;
    t += std::log1p(spec_.drift * std::sin(6 * M_PI * static_cast<double>(step) / static_cast<double>(spec_.steps)));
    if (arm != lastArm_) sinceChange_ = 0;
    if (lastArm_ >= 0 && arm == 1 && sinceChange_ < spec_.carryOverLength) t += std::log1p(spec_.carryOver);
    ++sinceChange_;
    lastArm_ = arm;
    return arm == 1 ? t + std::log(spec_.candidateEffect) : t;
  }

 private:
  const CaptureSpec& spec_;
  std::mt19937_64& random_;
  std::normal_distribution<double> normal_;
  double placement_ = 0, ar_ = 0;
  int lastArm_ = -1;
  uint32_t sinceChange_ = 0;
};

std::shared_ptr<telemetry::SwitchbackPlan> planOf(const CaptureSpec& spec) {
  auto plan = std::make_shared<telemetry::SwitchbackPlan>();
  for (const SimulatedArm& a : kArms) plan->arms.push_back(a.name);
  plan->block = spec.block;
  plan->washout = spec.washout;
  plan->turnsPerRound = 2;
  plan->window = telemetry::switchbackWindow(spec.block, 2);
  plan->armMap = std::make_shared<telemetry::ArmMap>();
  return plan;
}

telemetry::CommunicatorSnapshot snapshotOf(const CaptureSpec& spec, uint64_t commId, int rank, const RankRecords& r) {
  telemetry::CommunicatorSnapshot s;
  s.commId = commId;
  s.nRanks = spec.ranks;
  s.nNodes = spec.ranks;
  s.rank = rank;
  telemetry::PolicyIdentity id;
  id.experiment = "vllm-decode";
  id.experimentHash = "sha256:" + std::string(64, 'd');
  id.policy = "vllm-decode";
  id.policyHash = id.experimentHash;
  id.design = "switchback";
  s.identity = id;
  s.decisions.emplace();
  for (const auto& [where, calls] : r.calls) {
    const SimulatedArm& arm = kArms[where.second];
    s.decisions->push_back({telemetry::cellKey(kAllReduce, uint64_t{1} << where.first, arm.algorithm, arm.protocol, 0),
                            telemetry::DecisionSource::kRule, arm.name, arm.name, calls});
  }
  std::sort(s.decisions->begin(), s.decisions->end());
  s.timings.emplace();
  std::vector<profiler::SwitchbackTiming::Pair> pairs;
  r.windows->copyPairs(0, r.windows->pairs(), &pairs);
  telemetry::SwitchbackTimings t = profiler::SwitchbackTiming::timingsOf(
      *r.windows->plan(), pairs, r.windows->windowsClosed(), r.windows->unattributed());
  if (spec.tellCaptures) {
    std::vector<profiler::CaptureTiming::Slot> slots;
    r.captures.copySlots(0, r.captures.slots(), &slots);
    t.capturesTracked = true;
    t.captured = r.captures.slots() + r.captures.untracked();
    t.capturedUntracked = r.captures.untracked();
    t.turns = profiler::CaptureTiming::turnsOf(slots, spec.block, spec.washout);
  }
  s.timings->switchback = t;
  return s;
}

// A captured all-reduce: its slot (the same on every rank) and the arm its capture's turn decided.
struct Captured {
  int slot = -1;
  int arm = 0;
};

class Communicator {
 public:
  Communicator(const CaptureSpec& spec, int index, std::mt19937_64& random, const std::vector<double>& positions)
      : spec_(spec),
        commId_(spec.seed * 1000003ull + static_cast<uint64_t>(index) + 1),
        experiment_(experimentOf(spec)),
        schedule_(experiment_, commId_),
        random_(random),
        latency_(spec, random),
        positions_(positions),
        ranks_(static_cast<size_t>(spec.ranks)) {
    for (RankRecords& r : ranks_) r.windows = std::make_unique<profiler::SwitchbackTiming>(planOf(spec));
  }

  void run() {
    const int perStep = allReducesPerStep(spec_);
    const std::vector<int>& sizes = spec_.batchSizes;
    eager(uint64_t{8192} * kBytesPerToken, 0);  // the profile run, at the most tokens a step holds
    graphs_.resize(sizes.size());
    for (size_t g = sizes.size(); g-- > 0;) {  // largest first
      for (int w = 0; w < spec_.warmups; ++w) eager(static_cast<uint64_t>(sizes[g]) * kBytesPerToken, 0);
      for (int p = 0; p < perStep; ++p) graphs_[g].push_back(capture(static_cast<uint64_t>(sizes[g]) * kBytesPerToken));
    }
    std::uniform_real_distribution<double> uniform;
    std::normal_distribution<double> normal;
    // The batch size wanders: a random walk over [0, graphs), reflected at both ends, so that in the long run every
    // graph is replayed alike.
    const double end = static_cast<double>(sizes.size());
    double walk = end / 2;
    for (uint64_t step = 0; step < spec_.steps; ++step) {
      if (spec_.prefillEvery > 0 && uniform(random_) < 1 / spec_.prefillEvery) {
        eager(static_cast<uint64_t>(512 + uniform(random_) * 3584) * kBytesPerToken, step);
        continue;
      }
      walk += 1.5 * normal(random_);
      while (walk < 0 || walk >= end) walk = walk < 0 ? -walk : 2 * end - walk - 1e-9;
      const size_t g = std::min(static_cast<size_t>(walk), sizes.size() - 1);
      replay(g, static_cast<uint64_t>(sizes[g]) * kBytesPerToken, step);
    }
  }

  void write(std::vector<SimulatedFile>& out) const {
    for (int rank = 0; rank < spec_.ranks; ++rank) {
      telemetry::StatsEntry entry{1, false, 1772368496789,
                                  snapshotOf(spec_, commId_, rank, ranks_[static_cast<size_t>(rank)])};
      std::string text = telemetry::renderStatsEntry(entry);
      const std::string host = "pod-" + std::to_string(commId_ % 1000003);
      telemetry::StatsFileHeader header{telemetry::kStatsSchema, host, 100 + rank};
      out.push_back({host + "." + std::to_string(100 + rank) + ".json", telemetry::renderStatsFile(header, {&text})});
    }
  }

 private:
  // One tuner call for a collective of `bucket`: the arm its turn gives, counted on every rank.
  int take(int bucket) {
    int arm = static_cast<int>(schedule_.armOf(call_ / spec_.block));
    if (spec_.mirrorSchedule) arm = 1 - arm;
    ++call_;
    for (RankRecords& r : ranks_) ++r.calls[{bucket, arm}];
    return arm;
  }

  Captured capture(uint64_t bytes) {
    const int bucket = telemetry::sizeBucket(bytes);
    Captured c;
    for (RankRecords& r : ranks_) {
      if (r.captures.needsChunk()) r.captures.addChunk(std::make_unique<profiler::CaptureTiming::Chunk>());
      c.slot = r.captures.capture(telemetry::cellIndex(kAllReduce, bucket), bytes, call_);
    }
    c.arm = take(bucket);
    return c;
  }

  void time(int rank, int bucket, double logUs, int arm, int slot) {
    std::normal_distribution<double> normal;
    const auto ns = static_cast<uint64_t>(std::exp(logUs + spec_.rankNoise * normal(random_)) * 1000);
    const int bin = telemetry::LogHistogram::binOf(ns);
    RankRecords& r = ranks_[static_cast<size_t>(rank)];
    if (slot >= 0 && spec_.tellCaptures) {
      if (r.captures.replay(slot, telemetry::cellIndex(kAllReduce, bucket), arm, nullptr)) r.captures.record(slot, bin);
    } else {
      r.windows->record(kAllReduce, bucket, arm, bin);
    }
  }

  // An eager forward: every layer's all-reduces at `bytes`, each asking the tuner.
  void eager(uint64_t bytes, uint64_t step) {
    const int bucket = telemetry::sizeBucket(bytes);
    for (size_t p = 0; p < positions_.size(); ++p) {
      const int arm = take(bucket);
      const double logUs = latency_.logMicroseconds(bytes, arm, positions_[p], step);
      for (int rank = 0; rank < spec_.ranks; ++rank) time(rank, bucket, logUs, arm, -1);
    }
  }

  void replay(size_t graph, uint64_t bytes, uint64_t step) {
    const int bucket = telemetry::sizeBucket(bytes);
    for (size_t p = 0; p < graphs_[graph].size(); ++p) {
      const Captured& c = graphs_[graph][p];
      const double logUs = latency_.logMicroseconds(bytes, c.arm, positions_[p], step);
      for (int rank = 0; rank < spec_.ranks; ++rank) time(rank, bucket, logUs, c.arm, c.slot);
    }
  }

  const CaptureSpec& spec_;
  const uint64_t commId_;
  const policy::Experiment experiment_;
  tuner::SwitchbackSchedule schedule_;
  std::mt19937_64& random_;
  Latency latency_;
  const std::vector<double>& positions_;
  std::vector<RankRecords> ranks_;
  std::vector<std::vector<Captured>> graphs_;
  uint64_t call_ = 0;
};

}  // namespace

std::vector<int> vllmCaptureSizes(bool current) {
  std::vector<int> sizes = {1, 2, 4};
  for (int b = 8; b <= 512; b += current && b >= 256 ? 16 : 8) sizes.push_back(b);
  return sizes;
}

std::vector<SimulatedFile> simulateCaptureFiles(const CaptureSpec& spec) {
  std::mt19937_64 random(spec.seed);
  const std::vector<double> positions = positionEffects(spec, random);  // the model's: alike in every communicator
  std::vector<SimulatedFile> out;
  for (int c = 0; c < spec.communicators; ++c) {
    Communicator comm(spec, c, random, positions);
    comm.run();
    comm.write(out);
  }
  return out;
}

std::vector<CommunicatorRecord> simulateCaptureFleet(const CaptureSpec& spec) {
  std::vector<CommunicatorRecord> out;
  for (const SimulatedFile& file : simulateCaptureFiles(spec)) {
    StatusOr<std::vector<CommunicatorRecord>> records = parseTelemetryFile(file.text, file.name);
    if (records.isOk()) out.insert(out.end(), records->begin(), records->end());
  }
  return out;
}

int CaptureTally::cells() const {
  int n = 0;
  for (const auto& [bucket, b] : buckets) n += b.verdicts;
  return n;
}

int CaptureTally::calls() const {
  int n = 0;
  for (const auto& [bucket, b] : buckets) n += b.slower + b.faster;
  return n;
}

int CaptureTally::slowerCells() const {
  int n = 0;
  for (const auto& [bucket, b] : buckets) n += b.slower;
  return n;
}

double CaptureTally::coverage() const {
  int intervals = 0, covered = 0;
  for (const auto& [bucket, b] : buckets) intervals += b.intervals, covered += b.covered;
  return intervals ? static_cast<double>(covered) / intervals : 1;
}

CaptureTally tallyCaptureTrials(CaptureSpec spec, int trials, bool mirroredPairs) {
  CaptureTally t;
  const uint64_t first = spec.seed;
  const bool mirrored = spec.mirrorSchedule;
  const std::string wanted = spec.tellCaptures ? "graph" : "all";
  for (int i = 0; i < trials; ++i) {
    spec.seed = first + static_cast<uint64_t>(mirroredPairs ? i / 2 : i);
    spec.mirrorSchedule = mirrored != (mirroredPairs && i % 2 == 1);
    StatusOr<Fleet> fleet = assembleFleet(simulateCaptureFleet(spec), {});
    StatusOr<AbReport> report = fleet.isOk() ? compareArms(*fleet, AbOptions{}) : fleet.status();
    if (!report.isOk()) continue;
    for (const ArmComparison& c : report->comparisons) {
      if (c.traffic != wanted) continue;
      for (const verdicts::CellComparison& cell : c.cells.cells) {
        const int bucket = bucketOfCell(cell.cell);
        if (bucket < telemetry::sizeBucket(spec.batchSizes.front() * kBytesPerToken) ||
            bucket > telemetry::sizeBucket(spec.batchSizes.back() * kBytesPerToken)) {
          continue;  // the prefills' buckets, where an untold profiler's windows hold eager collectives only
        }
        BucketTally& b = t.buckets[bucket];
        ++b.verdicts;
        b.units += std::min(cell.nA, cell.nB);
        b.slower += cell.verdict == verdicts::Verdict::kSlower;
        b.faster += cell.verdict == verdicts::Verdict::kFaster;
        b.insufficient += cell.verdict == verdicts::Verdict::kInsufficient;
        if (!cell.interval) continue;
        ++b.intervals;
        b.covered += cell.interval->low <= spec.candidateEffect && spec.candidateEffect <= cell.interval->high;
      }
      ++t.summaries;
      t.summarySlower += c.summary.verdict == verdicts::Verdict::kSlower;
      t.summaryFaster += c.summary.verdict == verdicts::Verdict::kFaster;
    }
  }
  return t;
}

}  // namespace nccl_roce::fleet::calibration

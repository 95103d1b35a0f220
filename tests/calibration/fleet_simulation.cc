#include "tests/calibration/fleet_simulation.h"

#include <cmath>

namespace nccl_roce::fleet::calibration {

namespace {

constexpr int kAllReduce = 4;

double draw(std::mt19937_64& rng, double sigma, bool heavyTails) {
  if (!heavyTails) return std::normal_distribution<double>(0, sigma)(rng);
  // Student t with 3 dof has variance 3: scaled to the same standard deviation.
  return std::student_t_distribution<double>(3)(rng) * sigma / std::sqrt(3.0);
}

}  // namespace

double FleetSpec::effect(const std::string& arm, int bucket) const {
  auto a = effects.find(arm);
  if (a == effects.end()) return 1.0;
  auto b = a->second.find(bucket);
  return b == a->second.end() ? 1.0 : b->second;
}

double baseMicroseconds(int bucket) {
  return 20.0 + std::ldexp(1.5, bucket) / 40e3;
}

void forEachMeasurement(
    const FleetSpec& spec,
    const std::function<void(uint64_t, const std::string&, int, int, const std::vector<uint64_t>&)>& f) {
  std::mt19937_64 rng(spec.seed);
  uint64_t commId = spec.seed * 0x9e3779b97f4a7c15ull;
  std::vector<uint64_t> durations;
  for (const auto& [arm, count] : spec.communicatorsPerArm) {
    for (int c = 0; c < count; ++c) {
      ++commId;
      double commFactor = draw(rng, spec.communicatorSigma, false);
      for (int bucket : spec.buckets) {
        double bucketFactor = draw(rng, spec.bucketSigma, false);
        if (spec.measuredShare < 1 && std::uniform_real_distribution<double>(0, 1)(rng) >= spec.measuredShare) continue;
        double mean = baseMicroseconds(bucket) * spec.effect(arm, bucket) * std::exp(commFactor + bucketFactor);
        for (int rank = 0; rank < spec.ranks; ++rank) {
          durations.clear();
          for (int i = 0; i < spec.collectivesPerBucket; ++i) {
            double us = mean * std::exp(draw(rng, spec.collectiveSigma, spec.heavyTails));
            if (spec.slowShare > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < spec.slowShare) {
              us *= spec.slowFactor;
            }
            durations.push_back(static_cast<uint64_t>(us * 1000.0));
          }
          f(commId, arm, rank, bucket, durations);
        }
      }
    }
  }
}

std::vector<CommunicatorRecord> simulateFleet(const FleetSpec& spec) {
  std::map<std::pair<uint64_t, int>, CommunicatorRecord> records;
  forEachMeasurement(
      spec, [&](uint64_t commId, const std::string& arm, int rank, int bucket, const std::vector<uint64_t>& durations) {
        CommunicatorRecord& r = records[{commId, rank}];
        r.file = "sim.rank" + std::to_string(rank);
        r.commId = commId;
        r.rank = rank;
        r.nRanks = spec.ranks;
        r.nNodes = spec.nodes;
        r.fromStatistics = true;
        r.experiment = "sim";
        r.arm = arm;
        r.policy = arm;
        r.policyHash = arm == "control" ? "0x1" : "0x2";
        CellTimings& t = r.timings[TimingClock::kGpu][cellOf(kAllReduce, bucket)];
        for (uint64_t d : durations) t.add({1, static_cast<uint64_t>(telemetry::LogHistogram::binOf(d))});
      });
  std::vector<CommunicatorRecord> out;
  for (auto& [key, r] : records) out.push_back(std::move(r));
  return out;
}

}  // namespace nccl_roce::fleet::calibration

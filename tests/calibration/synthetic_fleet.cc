// Writes the statistics files of a simulated fleet, one per process (communicator rank), through the plugin's
// own writer (plugin/timing_statistics.h, plugin/statistics_file.h), so `nccl-roce ab` can be shown on data
// with a known truth (docs/ab-testing.md):
//   synthetic_fleet DIR [SEED]
// 24 communicators per arm ("control", "candidate"), 2 ranks each, all-reduces of 16 KiB-128 MiB. The truth:
// candidate is 7% faster in the 16K, 32K and 64K buckets, 4% slower in 32M and 64M, the same elsewhere.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "common/log.h"
#include "plugin/statistics_file.h"
#include "plugin/timing_statistics.h"
#include "tests/calibration/fleet_simulation.h"

using namespace nccl_roce;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s DIR [SEED]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  fleet::calibration::FleetSpec spec;
  spec.communicatorsPerArm = {{"control", 24}, {"candidate", 24}};
  spec.seed = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 7;
  for (int bucket : {14, 15, 16}) spec.effects["candidate"][bucket] = 0.93;
  for (int bucket : {25, 26}) spec.effects["candidate"][bucket] = 1.04;

  std::map<std::pair<uint64_t, int>, std::shared_ptr<profiler::CollectiveTracker>> trackers;
  std::map<uint64_t, std::string> arms;
  fleet::calibration::forEachMeasurement(
      spec, [&](uint64_t commId, const std::string& arm, int rank, int bucket, const std::vector<uint64_t>& durations) {
        auto& tracker = trackers[{commId, rank}];
        if (!tracker) tracker = std::make_shared<profiler::CollectiveTracker>(profiler::CollectiveTracker::Config{});
        arms[commId] = arm;
        uint64_t clock = 1'000'000;
        for (uint64_t d : durations) {
          void* coll = tracker->startCollective({4, uint64_t{3} << (bucket - 1), 1, 0, 1}, nullptr);
          tracker->stopChannel(tracker->startChannel(coll, 0, clock), clock + d);
          clock += d + 1000;
        }
      });
  plugin::StatisticsRegistry statistics;
  for (const auto& [key, tracker] : trackers) {
    auto [commId, rank] = key;
    const std::string& arm = arms[commId];
    std::string path = dir + format("/pod-%016llx-rank%d.json", static_cast<unsigned long long>(commId), rank);
    plugin::StatisticsEntry entry = statistics.claim(path, commId, "profiler");
    profiler::CommunicatorTimings labels;
    labels.commId = commId;
    labels.nRanks = spec.ranks;
    labels.nNodes = spec.ranks;
    labels.rank = rank;
    plugin::TimedCommunicator timed(labels, tracker, statistics, path, entry);
    nlohmann::ordered_json tuner;  // what the tuner reports for an experiment arm (plugin/tuner_plugin.cc)
    tuner["experiment"] = "decode-ll";
    tuner["experiment_hash"] = "0x00000000000051a7";
    tuner["policy"] = arm == "control" ? "inference" : "decode-ll";
    tuner["policy_hash"] = arm == "control" ? "0x1111111111111111" : "0x2222222222222222";
    tuner["arm"] = arm;
    Status written = statistics.report(path, entry, tuner);
    if (written.isOk()) written = statistics.report(path, entry, plugin::timingStatistics(timed));
    if (!written.isOk()) {
      std::fprintf(stderr, "synthetic_fleet: %s\n", written.toString().c_str());
      return 1;
    }
  }
  std::printf("wrote %zu statistics files (%zu communicators) to %s\n", trackers.size(), arms.size(), dir.c_str());
  return 0;
}

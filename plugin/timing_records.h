// A timed communicator as the profiler reports it: the labels it is known by (ids, shape, experiment arm and
// policy, which every rank derives from the communicator id as the tuner does), its tracker, and the rule the
// tuner used for each key. Shared by the profiler's context and the metrics textfile, which snapshots it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "plugin/telemetry_file.h"
#include "profiler/collective_tracker.h"
#include "profiler/open_metrics.h"

namespace nccl_roce::plugin {

class ProcessContext;
struct ProfilerCommunicator;

class TimedCommunicator {
 public:
  TimedCommunicator(profiler::CommunicatorTimings labels, std::shared_ptr<profiler::CollectiveTracker> tracker,
                    TelemetryFiles& statistics, std::string statsPath, TelemetryEntry statsEntry);

  // Labels, every key's histogram so far, dropped events and deciding rules, now.
  profiler::CommunicatorTimings snapshot() const;
  const profiler::CommunicatorTimings& labels() const { return labels_; }
  const std::string& statsPath() const { return statsPath_; }
  const TelemetryEntry& statsEntry() const { return statsEntry_; }

 private:
  profiler::CommunicatorTimings labels_;  // no entries
  std::shared_ptr<profiler::CollectiveTracker> tracker_;
  TelemetryFiles& statistics_;
  std::string statsPath_;
  TelemetryEntry statsEntry_;
};

// The labels of a communicator: its ids and shape, and the arm and policy its commId is assigned.
profiler::CommunicatorTimings describeCommunicator(ProcessContext& process, const ProfilerCommunicator& comm);

// The profiler's fields of a communicator's statistics entry, now: its comm_id (the tuner's), shape and rank, and
// "timing": {histogram scheme, dropped counts, per key count/sum/min/max/p50/p90/p99 in microseconds, the
// deciding rule and the bins} (docs/ab-testing.md).
nlohmann::ordered_json timingRecords(const TimedCommunicator& timed);

}  // namespace nccl_roce::plugin

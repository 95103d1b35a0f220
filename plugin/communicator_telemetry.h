// Where the tuner and the profiler of one communicator meet in the process: each attaches its part when it
// initialises (a function that reports the part as it is now) and hands its final part over when it finalizes;
// snapshot() is the typed telemetry::CommunicatorSnapshot of both at that moment, with the profiler's timings
// labelled by the tuner's rules. The statistics file and the metrics textfile read communicators only through
// it, and neither producer ever reads the other's state any other way.
//
// NCCL initialises the profiler before the tuner (src/init.cc, 2.27-2.31), so the profiler's part is often
// alone at first: a snapshot then has timings but no identity, and gains the identity once the tuner attaches.
// Thread-safe: parts are attached and finished on NCCL's init and finalize threads while the writers' threads
// take snapshots; a part's report function is called without the lock, and must share what it reads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "telemetry/communicator_snapshot.h"
#include "telemetry/switchback.h"

namespace nccl_roce::plugin {

enum class Producer : uint8_t { kTuner = 0, kProfiler = 1 };

// The tuner's part: who decides for the communicator and what it decided.
struct TunerReport {
  int nRanks = 0, nNodes = 0;
  telemetry::PolicyIdentity identity;
  std::vector<telemetry::DecisionCount> decisions;
  std::optional<telemetry::ChunkSizeCounts> chunkSizes;
};

// The profiler's part: the rank and its timings (not yet labelled with rules).
struct ProfilerReport {
  int nRanks = 0, nNodes = 0;  // 0 where the NCCL version does not say (profiler v1-v3)
  std::optional<int> rank;
  telemetry::Timings timings;
};

using TunerNow = std::function<TunerReport()>;
using ProfilerNow = std::function<ProfilerReport()>;
// How the profiler takes a switchback's plan (telemetry/switchback.h) from the tuner.
using SwitchbackSink = std::function<void(std::shared_ptr<const telemetry::SwitchbackPlan>)>;

class CommunicatorTelemetry {
 public:
  explicit CommunicatorTelemetry(uint64_t commId) : commId_(commId) {}
  CommunicatorTelemetry(const CommunicatorTelemetry&) = delete;
  CommunicatorTelemetry& operator=(const CommunicatorTelemetry&) = delete;

  uint64_t commId() const { return commId_; }

  void attach(TunerNow now);
  void attach(ProfilerNow now);
  // The producer's last report, kept instead of its function (which goes, and with it what it shared).
  void finish(TunerReport last);
  void finish(ProfilerReport last);
  // A switchback experiment's plan, from the tuner, and the profiler's sink for it: the sink gets the plan once,
  // on the thread of whichever of the two calls comes second (NCCL initialises the profiler first: the tuner's).
  void attachSwitchback(const std::shared_ptr<const telemetry::SwitchbackPlan>& plan);
  void onSwitchback(SwitchbackSink sink);

  // Lets go of the producer's report function, if it is still attached (an init that failed after attaching):
  // its part is what it finished with, or none. The statistics file calls it as the producer finishes.
  void detach(Producer producer);
  // Whether some producer attached or finished with a part: a snapshot has something to say.
  bool hasParts() const;

  telemetry::CommunicatorSnapshot snapshot() const;

 private:
  const uint64_t commId_;
  mutable std::mutex mutex_;  // the members below; never held while a report function runs
  TunerNow tunerNow_;
  ProfilerNow profilerNow_;
  std::optional<TunerReport> tunerLast_;
  std::optional<ProfilerReport> profilerLast_;
  std::shared_ptr<const telemetry::SwitchbackPlan> switchbackPlan_;
  SwitchbackSink switchbackSink_;  // until it has the plan
};

}  // namespace nccl_roce::plugin

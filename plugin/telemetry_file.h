// The per-process statistics file: NCCL_ROCE_STATS=PREFIX makes a process write PREFIX.<pid>.json with one entry
// per communicator, rewritten atomically after every report so the file always holds one whole document with
// everything reported so far. Entries are filled by producers: the tuner reports a communicator's policy, arm
// and decisions at finalize. A second producer in this library (a profiler timing collectives per
// communicator) adds its fields to the same entries: it claims entries by the communicator id NCCL gives
// every plugin, and the n-th communicator with an id that one producer claims is the n-th another claims.
// Part of the process context (plugin/process_context.h); tests construct their own. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace nccl_roce::plugin {

// The file's format (docs/ab-testing.md); `nccl-roce ab` refuses any other.
inline constexpr const char* kTelemetrySchema = "nccl-roce.stats/2";

// One communicator's entry in a statistics file.
struct TelemetryEntry {
  uint64_t commId = 0;
  uint32_t ordinal = 0;  // earlier communicators of this process with the same id (several local ranks; 0 before
                         // NCCL 2.28, which passes no id)
  bool operator<(const TelemetryEntry& other) const {
    return commId != other.commId ? commId < other.commId : ordinal < other.ordinal;
  }
};

// The tuner's live answer to "which rule decided this collective, size bucket, algorithm and protocol in this
// communicator": a rule name, or null. Lets the profiler label timings with the deciding rule while both run.
using RuleLookup = std::function<nlohmann::ordered_json(int collective, int bucket, int algorithm, int protocol)>;

// The tuner's live decision counts of a communicator, as the statistics file's "decisions" list
// (tuner/decision_counts.h): what the metrics textfile exports beside the timings (profiler/open_metrics.h).
using DecisionsLookup = std::function<nlohmann::ordered_json()>;

class TelemetryFiles {
 public:
  // NCCL_ROCE_STATS=/data/stats -> /data/stats.<pid>.json: processes never collide.
  static std::string pathFor(const std::string& prefix, long pid);

  // The entry of the next communicator with `commId` that `producer` ("tuner") reports on in the file at `path`.
  TelemetryEntry claim(const std::string& path, uint64_t commId, const std::string& producer);

  // Merges `fields` into the entry (which takes its place in the file, in order of first report) and rewrites
  // the file. Each entry is serialised when it changes, not at every rewrite: MoE serving finalizes hundreds of
  // communicators.
  Status report(const std::string& path, const TelemetryEntry& entry, const nlohmann::ordered_json& fields);

  // The tuner attaches its rule lookup to its entry; the profiler asks for the one of its own entry (the same
  // entry when both claimed it, see above). An empty function when none is attached.
  void attachRules(const std::string& path, const TelemetryEntry& entry, RuleLookup lookup);
  RuleLookup rulesOf(const std::string& path, const TelemetryEntry& entry);
  // The same for the tuner's decision counts.
  void attachDecisions(const std::string& path, const TelemetryEntry& entry, DecisionsLookup lookup);
  DecisionsLookup decisionsOf(const std::string& path, const TelemetryEntry& entry);

 private:
  struct Reported {
    nlohmann::ordered_json fields;
    std::string text;  // fields, serialised
  };
  struct File {
    std::map<std::pair<uint64_t, std::string>, uint32_t> claims;  // (commId, producer) -> entries claimed
    std::map<TelemetryEntry, size_t> order;                       // entry -> index in `reported`
    std::vector<Reported> reported;
    std::map<TelemetryEntry, RuleLookup> rules;
    std::map<TelemetryEntry, DecisionsLookup> decisions;
  };
  static Status write(const std::string& path, const File& file);

  std::mutex mutex_;
  std::map<std::string, File> files_;
};

}  // namespace nccl_roce::plugin

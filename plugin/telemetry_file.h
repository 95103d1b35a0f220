// The per-process statistics file: NCCL_ROCE_STATS=PREFIX makes a process write PREFIX.<pid>.json, one entry per
// communicator, always one whole document (written to a temporary file and renamed, so a reader, or a process
// killed mid-write, never leaves half a file). Entries are filled by producers, the tuner (policy, arm,
// decisions) and the profiler (timings), which claim entries by the communicator id NCCL gives every plugin: a
// producer joins the oldest live entry of that id it has not joined yet, so the tuner and the profiler of one
// communicator share one entry (NCCL inits both before it finalizes either).
//
// An entry is "live" while a producer that claimed it has not finished, "final" after; each says which, and the
// time of its last update. The file is rewritten:
// - every checkpoint interval (NCCL_ROCE_STATS_INTERVAL, 60 s unless set) by a writer thread, with every live
//   entry's cumulative fields as its producers give them now: a process killed by SIGKILL, the OOM killer or a
//   preemption loses at most the collectives of the last interval;
// - when an entry becomes final: by the writer at once, or by the finalizing thread itself when no live entry
//   is left (the writer is stopped and joined then, so no thread of ours runs while no communicator lives, and
//   none is left when NCCL dlcloses the library) or when checkpoints are off (interval 0: only final entries are
//   written, each as it becomes final).
// Memory: a live entry holds its producers' latest fields, a final one only its text, and a file holds fewer
// than finalsKept final entries after each write: whenever that many have gathered, the write moves the oldest
// finalsKept to a part file PREFIX.<pid>.final-<n>.json (the same schema; written once, never rewritten) and
// frees them. Readers drop the copies a write interrupted between the two files leaves, by the entry's number
// (docs/ab-testing.md).
// Part of the process context (plugin/process_context.h); tests construct their own. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "plugin/periodic_writer.h"

namespace nccl_roce::plugin {

// The file's format (docs/ab-testing.md); `nccl-roce ab` reads this and nccl-roce.stats/2.
inline constexpr const char* kTelemetrySchema = "nccl-roce.stats/3";

// Final entries a file keeps in memory before they move to a part file (docs/environment.md).
inline constexpr size_t kFinalsKept = 128;
// NCCL_ROCE_STATS_INTERVAL unset.
inline constexpr std::chrono::milliseconds kDefaultCheckpointInterval{60000};

// A producer's handle on its entry.
struct TelemetryEntry {
  uint64_t commId = 0;
  uint64_t number = 0;  // "entry" in the file: unique in the process, from 1
};

// The tuner's live answer to "which rule decided this collective, size bucket, algorithm and protocol in this
// communicator": a rule name, or null. Lets the profiler label timings with the deciding rule while both run.
using RuleLookup = std::function<nlohmann::ordered_json(int collective, int bucket, int algorithm, int protocol)>;
// A producer's fields of a live entry as they are now (cumulative): what a checkpoint writes. Called on the
// writer's thread, so it must own (share) everything it reads.
using FieldsNow = std::function<nlohmann::ordered_json()>;

struct TelemetryOptions {
  std::chrono::milliseconds interval{0};  // between checkpoints; 0: none, only final entries are written
  size_t finalsKept = kFinalsKept;
  std::function<std::chrono::system_clock::time_point()> clock;  // "updated" stamps; empty: the system clock
  std::string problem;  // what was wrong with the setting the interval came from; said once (takeProblem)
};

// NCCL_ROCE_STATS_INTERVAL: seconds between checkpoints, a decimal number (0.5, 60) up to a day; 0 turns
// checkpoints off. Unset or anything else: 60 s (with `problem` saying why for anything else).
TelemetryOptions telemetryOptionsFrom(const Environment& env);

// The tuner's live decision counts of a communicator, as the statistics file's "decisions" list
// (tuner/decision_counts.h): what the metrics textfile exports beside the timings (profiler/open_metrics.h).
using DecisionsLookup = std::function<nlohmann::ordered_json()>;

class TelemetryFiles {
 public:
  explicit TelemetryFiles(TelemetryOptions options = {});
  ~TelemetryFiles();  // stops the writer; writes nothing more
  TelemetryFiles(const TelemetryFiles&) = delete;
  TelemetryFiles& operator=(const TelemetryFiles&) = delete;

  // NCCL_ROCE_STATS=/data/stats -> /data/stats.<pid>.json: processes never collide.
  static std::string pathFor(const std::string& prefix, long pid);
  // /data/stats.<pid>.json -> /data/stats.<pid>.final-<part>.json
  static std::string partPathFor(const std::string& path, uint32_t part);

  // The entry `producer` ("tuner", "profiler") joins for the communicator `commId` in the file at `path`.
  TelemetryEntry claim(const std::string& path, uint64_t commId, const std::string& producer);
  // From now on each checkpoint asks `now` for the producer's fields of the entry, until it finishes.
  void watch(const std::string& path, const TelemetryEntry& entry, const std::string& producer, FieldsNow now);
  // The producer's last fields (merged into the entry's). Once every producer of the entry has finished, the
  // entry is final and written (see the top). An error when this call wrote and could not, or when the writer's
  // latest write of this file failed. No fields from any producer: the entry is dropped unwritten (an init that
  // failed after its claim).
  Status finish(const std::string& path, const TelemetryEntry& entry, const std::string& producer,
                const nlohmann::ordered_json& fields);

  // Writes every file now, live entries with their producers' fields now: what the writer does each interval.
  Status checkpoint();

  // The tuner attaches its rule lookup to its entry; the profiler asks for the one of its own entry (the same
  // entry when both claimed it). Kept while the entry is live. An empty function when none is attached.
  void attachRules(const std::string& path, const TelemetryEntry& entry, RuleLookup lookup);
  RuleLookup rulesOf(const std::string& path, const TelemetryEntry& entry);
  // The same for the tuner's decision counts.
  void attachDecisions(const std::string& path, const TelemetryEntry& entry, DecisionsLookup lookup);
  DecisionsLookup decisionsOf(const std::string& path, const TelemetryEntry& entry);

  // What was wrong with NCCL_ROCE_STATS_INTERVAL, the first time it is asked (the first init logs it); "" after.
  std::string takeProblem();
  // Entries held in memory over all files, and how many of them are live (tests, docs/performance.md).
  size_t entriesHeld() const;
  size_t liveEntries() const;

 private:
  struct Producer {
    std::string name;
    FieldsNow now;  // empty once finished, or until watch()
    bool finished = false;
  };
  struct Entry {
    uint64_t commId = 0;
    std::vector<Producer> producers;   // live entries only
    nlohmann::ordered_json fields;     // merged from the producers, while live
    bool hasFields = false;            // some producer gave fields: the entry is worth writing
    std::chrono::system_clock::time_point updated;
    RuleLookup rules;                  // while live
    DecisionsLookup decisions;         // while live
    std::string text;                  // final: the entry, serialised; all a final entry keeps
    bool final() const { return !text.empty(); }
  };
  struct File {
    std::map<uint64_t, Entry> entries;  // by number: the order of the file
    size_t finals = 0;
    uint32_t parts = 0;                 // part files written
    Status lastWrite = Status::ok();    // of the writer's latest write, for the next finish to report
  };
  // What one write of one file puts where.
  struct Rendered {
    std::string main;
    std::vector<std::string> parts;  // the part files to write first, numbered on from the file's last
    std::vector<uint64_t> moved;     // the final entries they hold, freed once every file is written
  };

  // Writes every file (or only `onlyPath`), live entries too when `withLive`, with their producers' fields now.
  Status writeAll(bool withLive, const std::string* onlyPath);
  Status writeFile(const std::string& path, uint32_t firstPart, const Rendered& rendered);
  Rendered render(File& file, bool withLive) const;  // mutex_ held
  std::string serialise(uint64_t number, const Entry& entry) const;
  std::chrono::system_clock::time_point now() const;
  // The writer runs while some entry is live and checkpoints are on; decided from the current count, so
  // concurrent claims and finishes leave it right whatever their order.
  void adjustWriter();

  const TelemetryOptions options_;
  mutable std::mutex mutex_;  // everything below but the writer
  std::map<std::string, File> files_;
  uint64_t numbered_ = 0;  // entries numbered so far
  size_t live_ = 0;        // live entries over all files
  bool problemTaken_ = false;
  std::mutex writing_;    // one write of the files at a time (the temporary file's name is per process)
  std::mutex lifecycle_;  // adjustWriter, one at a time
  PeriodicWriter writer_;
};

}  // namespace nccl_roce::plugin

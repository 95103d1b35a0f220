// The per-process statistics file: NCCL_ROCE_STATS=PREFIX makes a process write PREFIX.<pid>.json, one entry per
// communicator, always one whole document (written to a temporary file and renamed, so a reader, or a process
// killed mid-write, never leaves half a file). Its format is telemetry/stats_file.h's; this keeps the entries.
//
// Producers, the tuner and the profiler, claim an entry each for their communicator and meet in it (a
// CommunicatorTelemetry, plugin/communicator_telemetry.h). Pairing the two claims of one communicator (claim):
// - NCCL initialises a communicator's profiler and then its tuner on one thread, with nothing of another
//   communicator between them (initTransportsRank in src/init.cc, 2.27-2.31; several communicators initialise on
//   threads of their own): a claim joins the latest entry the other producer claimed on the same thread, when
//   their communicator ids and shapes (ranks, nodes, where both know them) agree;
// - failing that, where the id is not 0, the oldest entry of the id the producer has not joined (ranks of one
//   communicator in one process share its id, and decide alike);
// - otherwise a new entry. Id 0 (NCCL 2.27, whose tuner is given no id) is never paired but by thread.
//
// An entry is "live" while a producer that claimed it has not finished, "final" after; each says which, and the
// time of its last update. The file is rewritten:
// - every checkpoint interval (NCCL_ROCE_STATS_INTERVAL, 60 s unless set) by a writer thread, with every live
//   entry as its producers report it now: a process killed by SIGKILL, the OOM killer or a preemption loses at
//   most the collectives of the last interval;
// - when an entry becomes final: by the writer at once, or by the finalizing thread itself when no live entry
//   is left (the writer is stopped and joined then, so no thread of ours runs while no communicator lives, and
//   none is left when NCCL dlcloses the library) or when checkpoints are off (interval 0: only final entries are
//   written, each as it becomes final).
// Memory: a live entry holds its producers' parts, a final one only its text, and a file holds fewer than
// finalsKept final entries after each write: whenever that many have gathered, the write moves the oldest
// finalsKept to a part file PREFIX.<pid>.final-<n>.json (the same schema; written once, never rewritten) and
// frees them. Readers drop the copies a write interrupted between the two files leaves, by the entry's number
// (docs/ab-testing.md).
// Part of the process context (plugin/process_context.h); tests construct their own. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "common/log.h"
#include "common/settings.h"
#include "common/status.h"
#include "plugin/communicator_telemetry.h"
#include "plugin/periodic_writer.h"
#include "plugin/write_failures.h"

namespace nccl_roce::plugin {

// Final entries a file keeps in memory before they move to a part file (docs/environment.md).
inline constexpr size_t kFinalsKept = 128;
// NCCL_ROCE_STATS_INTERVAL unset.
inline constexpr std::chrono::seconds kDefaultCheckpointInterval{
    settings::wholeNumber(settings::kStatsInterval.unsetValue)};

// A producer's handle on its entry.
struct TelemetryEntry {
  uint64_t number = 0;  // "entry" in the file: unique in the process, from 1
  std::shared_ptr<CommunicatorTelemetry> telemetry;
};

// What a producer knows of its communicator's shape; 0 where it is not told.
struct CommunicatorShape {
  int nRanks = 0, nNodes = 0;
};

struct TelemetryOptions {
  std::chrono::milliseconds interval{0};  // between checkpoints; 0: none, only final entries are written
  size_t finalsKept = kFinalsKept;
  std::function<std::chrono::system_clock::time_point()> clock;  // "updated" stamps; empty: the system clock
  std::string problem;       // what was wrong with the setting the interval came from; said once (takeProblem)
  Logger* logger = nullptr;  // where a failed write is said, once (plugin/write_failures.h); null: nowhere
};

// NCCL_ROCE_STATS_INTERVAL: seconds between checkpoints, a decimal number (0.5, 60) up to a day; 0 turns
// checkpoints off. Unset or anything else: 60 s (with `problem` saying why for anything else).
TelemetryOptions telemetryOptionsFrom(const Environment& env);

class TelemetryFiles {
 public:
  explicit TelemetryFiles(TelemetryOptions options = {});
  ~TelemetryFiles();  // stops the writer; writes nothing more
  TelemetryFiles(const TelemetryFiles&) = delete;
  TelemetryFiles& operator=(const TelemetryFiles&) = delete;

  // NCCL_ROCE_STATS=/data/stats -> /data/stats.<pid>.json: processes never collide.
  static std::string pathFor(const std::string& prefix, long pid);
  // This process's statistics file as NCCL_ROCE_STATS names it now (the pid is read at each call, so a forked
  // child names its own); nullopt when it is unset or empty. What the tuner and the profiler both write to.
  static std::optional<std::string> statsPathOf(const Environment& env);
  // /data/stats.<pid>.json -> /data/stats.<pid>.final-<part>.json
  static std::string partPathFor(const std::string& path, uint32_t part);

  // The entry `producer` joins for the communicator `commId` in the file at `path` (pairing: see the top). The
  // first claim of a path makes its directory (docs/environment.md), so a directory that cannot be made is said at
  // the first communicator's init, not at its first write.
  TelemetryEntry claim(const std::string& path, uint64_t commId, Producer producer, CommunicatorShape shape);
  // The producer is done with its entry (having handed its last part to entry.telemetry, or not: an init that
  // failed after its claim). Once every producer of the entry has finished, the entry is final and written (see
  // the top); without any part it is dropped unwritten. An error when this call wrote and could not, or when the
  // writer's latest write of this file failed. Every failed write, whoever makes it, is said once per process
  // through options.logger (plugin/write_failures.h): callers need not say it again.
  Status finish(const std::string& path, const TelemetryEntry& entry, Producer producer);

  // Writes every file now, live entries as their producers report them now: what the writer does each interval.
  Status checkpoint();

  // What was wrong with NCCL_ROCE_STATS_INTERVAL, the first time it is asked (the first init logs it); "" after.
  std::string takeProblem();
  // Writes (and attempts to make a directory) that failed so far.
  uint64_t writeFailures() const { return failures_.failures(); }
  const WriteFailures& failures() const { return failures_; }
  // Entries held in memory over all files, and how many of them are live (tests, docs/performance.md).
  size_t entriesHeld() const;
  size_t liveEntries() const;

 private:
  struct Entry {
    std::shared_ptr<CommunicatorTelemetry> telemetry;  // while live
    uint8_t joined = 0, finished = 0;                  // bit per Producer
    std::thread::id claimedOn;                         // the thread of its first claim
    CommunicatorShape shape;
    std::string text;  // final: the entry, rendered; all a final entry keeps
    bool final() const { return !text.empty(); }
  };
  struct File {
    std::map<uint64_t, Entry> entries;  // by number: the order of the file
    size_t finals = 0;
    uint32_t parts = 0;               // part files written
    Status lastWrite = Status::ok();  // of the writer's latest write, for the next finish to report
  };
  // A live entry's text as of one write, rendered without the lock.
  struct LiveText {
    std::string path;
    uint64_t number;
    std::string text;
  };
  // What one write of one file puts where.
  struct Rendered {
    std::string main;
    std::vector<std::string> parts;  // the part files to write first, numbered on from the file's last
    std::vector<uint64_t> moved;     // the final entries they hold, freed once the file is written
  };

  uint64_t pairWith(File& file, uint64_t commId, Producer producer, CommunicatorShape shape) const;  // 0: none
  // Every live entry of every file (or of `onlyPath`) rendered as its producers report it now.
  std::vector<LiveText> renderLive(const std::string* onlyPath);
  // Writes every file (or only `onlyPath`), live entries too when `withLive`.
  Status writeAll(bool withLive, const std::string* onlyPath);
  Status writeOne(const std::string& path, const std::vector<LiveText>& live);
  Status writeFile(const std::string& path, uint32_t firstPart, const Rendered& rendered);
  Rendered render(File& file, const std::string& path, const std::vector<LiveText>& live) const;  // mutex_ held
  std::string renderFinal(uint64_t number, const Entry& entry) const;
  int64_t nowMs() const;
  // The writer runs while some entry is live and checkpoints are on; decided from the current count, so
  // concurrent claims and finishes leave it right whatever their order.
  void adjustWriter();

  const TelemetryOptions options_;
  WriteFailures failures_;
  mutable std::mutex mutex_;  // everything below but the writer
  std::map<std::string, File> files_;
  uint64_t numbered_ = 0;  // entries numbered so far
  size_t live_ = 0;        // live entries over all files
  bool problemTaken_ = false;
  std::mutex writing_;    // one write of the files at a time: an older rendering never lands over a newer one
  std::mutex lifecycle_;  // adjustWriter, one at a time
  PeriodicWriter writer_;
};

}  // namespace nccl_roce::plugin

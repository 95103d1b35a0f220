// NCCL_ROCE_METRICS=DIR: this process's collective timings as a textfile in DIR for Prometheus' node-exporter
// textfile collector (telemetry/open_metrics.h), named and labelled by its pod and process
// (plugin/textfile_identity.h), rewritten atomically (a rename, so the collector never reads half a file) by a
// background thread at most once per interval: rendering copies every key's histogram, which should not happen
// per collective. The process removes its file when it exits, and after each of its writes the thread sweeps a
// bounded share of the directory for textfiles no writer has touched for kTextfileMaxAge (processes killed before
// they could: plugin/textfile_sweep.h), never on NCCL's threads. The thread runs while a
// communicator is live: the last finalize stops and joins it and writes the file itself, so no thread of ours is left
// when NCCL dlcloses the library. Finalized communicators keep their last figures in the file (the most recent
// kMaxFinished, each with its histograms: 8 KiB per key), so counters never go backwards while they are listed. Part of
// the process context; tests construct their own. Thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/log.h"
#include "common/status.h"
#include "plugin/communicator_telemetry.h"
#include "plugin/periodic_writer.h"
#include "plugin/textfile_sweep.h"
#include "plugin/write_failures.h"
#include "telemetry/open_metrics.h"

namespace nccl_roce::plugin {

inline constexpr std::chrono::milliseconds kMetricsInterval{10000};

class MetricsTextfile {
 public:
  // A failed write is said once, through `logger` (plugin/write_failures.h), which must outlive this.
  // `statisticsFailures`, when given, counts the statistics files' failed writes for the textfile's
  // nccl_roce_write_failures_total; it must outlive this too.
  explicit MetricsTextfile(std::chrono::milliseconds interval = kMetricsInterval, Logger& logger = nullLogger(),
                           const WriteFailures* statisticsFailures = nullptr);
  ~MetricsTextfile() { writer_.stop(); }
  MetricsTextfile(const MetricsTextfile&) = delete;
  MetricsTextfile& operator=(const MetricsTextfile&) = delete;

  // A communicator to export while it lives. With NCCL_ROCE_METRICS set in `env` (read at the first add), the
  // writer runs while any is live; without it nothing is kept. The first add makes the directory.
  void add(std::shared_ptr<const CommunicatorTelemetry> comm, const Environment& env);
  // The communicator finalizes: its figures as of now stay in the file. The last live one writes the file and
  // stops the writer.
  void finish(const std::shared_ptr<const CommunicatorTelemetry>& comm);

  // Renders and writes the file now (what the writer does every interval). OK without a directory. A failure is
  // said once per process (the constructor's logger) and returned.
  Status writeNow();
  // A share of the stale-file sweep (what the writer does after each write; tests call it too).
  TextfileSweep::Round sweepStale(const TextfileSweep::Limits& limits = {});
  uint64_t writeFailures() const { return failures_.failures(); }
  std::string path() const;
  bool writerRunning() const { return writer_.running(); }

  static constexpr size_t kMaxFinished = 64;

 private:
  // The writer runs while a communicator is live (decided from the current count: see TelemetryFiles).
  void adjustWriter();

  WriteFailures failures_;
  const WriteFailures* const statisticsFailures_;
  mutable std::mutex mutex_;
  std::string dir_, fileName_;  // set by the first communicator; the file is dir_/fileName_
  telemetry::ProcessLabels process_;
  std::vector<std::shared_ptr<const CommunicatorTelemetry>> live_;
  std::deque<telemetry::CommunicatorSnapshot> finished_;
  std::mutex writing_, lifecycle_;
  std::mutex sweeping_;  // the sweep below, which only the writer thread runs but for tests
  TextfileSweep sweep_;
  PeriodicWriter writer_;  // last: stopped before the members it writes from go
};

}  // namespace nccl_roce::plugin

// NCCL_ROCE_METRICS=DIR: this process's collective timings as DIR/nccl-roce.<pid>.prom for Prometheus'
// node-exporter textfile collector (profiler/open_metrics.h), rewritten atomically (a rename, so the collector
// never reads half a file) by a background thread at most once per interval: rendering copies every key's
// histogram, which should not happen per collective. Finalized communicators keep their last figures in the
// file (the most recent kMaxFinished), so counters never go backwards while the process lives.
// Part of the process context; tests construct their own. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "plugin/timing_records.h"

namespace nccl_roce::plugin {

inline constexpr std::chrono::milliseconds kMetricsInterval{10000};

class MetricsTextfile {
 public:
  explicit MetricsTextfile(std::chrono::milliseconds interval = kMetricsInterval) : interval_(interval) {}
  ~MetricsTextfile();
  MetricsTextfile(const MetricsTextfile&) = delete;
  MetricsTextfile& operator=(const MetricsTextfile&) = delete;

  // A communicator to export while it lives. The first one with NCCL_ROCE_METRICS set in `env` starts the writer;
  // without it nothing is kept.
  void add(std::shared_ptr<TimedCommunicator> comm, const Environment& env);
  // The communicator finalizes: its figures as of now stay in the file.
  void finish(const std::shared_ptr<TimedCommunicator>& comm);

  // Renders and writes the file now (what the writer does every interval). OK without a directory.
  Status writeNow();
  std::string path() const;

  static constexpr size_t kMaxFinished = 256;

 private:
  void run();

  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread writer_;
  std::string path_;
  profiler::ProcessLabels process_;
  std::vector<std::shared_ptr<TimedCommunicator>> live_;
  std::deque<profiler::CommunicatorTimings> finished_;
};

}  // namespace nccl_roce::plugin

#include "plugin/metrics_textfile.h"

#include <unistd.h>

#include <algorithm>

#include "common/file.h"

namespace nccl_roce::plugin {

MetricsTextfile::MetricsTextfile(std::chrono::milliseconds interval)
    : writer_(interval, [this] { (void)writeNow(); }) {}

void MetricsTextfile::add(std::shared_ptr<const CommunicatorTelemetry> comm, const Environment& env) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (path_.empty()) {
      auto dir = env.get("NCCL_ROCE_METRICS");
      if (!dir || dir->empty()) return;
      char host[256] = {0};
      process_.node = ::gethostname(host, sizeof(host) - 1) == 0 ? host : "";
      process_.pid = static_cast<long>(::getpid());
      path_ = *dir + "/nccl-roce." + std::to_string(::getpid()) + ".prom";
    }
    live_.push_back(std::move(comm));
  }
  adjustWriter();
}

void MetricsTextfile::finish(const std::shared_ptr<const CommunicatorTelemetry>& comm) {
  bool last = false;
  telemetry::CommunicatorSnapshot figures = comm->snapshot();  // without the lock: producers report under theirs
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = std::find(live_.begin(), live_.end(), comm);
    if (found == live_.end()) return;
    finished_.push_back(std::move(figures));
    if (finished_.size() > kMaxFinished) finished_.pop_front();
    live_.erase(found);
    last = live_.empty();
  }
  if (!last) return;
  adjustWriter();
  (void)writeNow();  // the final figures, which the stopped writer would have written at its next round
}

void MetricsTextfile::adjustWriter() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  bool wanted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted = !live_.empty();
  }
  if (wanted) {
    (void)writer_.start();  // no thread to be had: the file is written at the last finalize only
  } else {
    writer_.stop();
  }
}

std::string MetricsTextfile::path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return path_;
}

Status MetricsTextfile::writeNow() {
  std::lock_guard<std::mutex> writing(writing_);  // one temporary file per process: one write at a time
  std::vector<std::shared_ptr<const CommunicatorTelemetry>> live;
  std::vector<telemetry::CommunicatorSnapshot> all;
  std::string path;
  telemetry::ProcessLabels process;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (path_.empty()) return Status::ok();
    path = path_;
    process = process_;
    all.assign(finished_.begin(), finished_.end());
    live = live_;
  }
  for (const auto& comm : live) all.push_back(comm->snapshot());  // without the lock: producers report under theirs
  return writeFileAtomically(path, telemetry::renderTextfile(process, all));
}

}  // namespace nccl_roce::plugin

#include "plugin/metrics_textfile.h"

#include <unistd.h>

#include <algorithm>

#include "common/file.h"
#include "profiler/open_metrics.h"

namespace nccl_roce::plugin {

MetricsTextfile::~MetricsTextfile() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void MetricsTextfile::add(std::shared_ptr<TimedCommunicator> comm, const Environment& env) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (path_.empty()) {
    auto dir = env.get("NCCL_ROCE_METRICS");
    if (!dir || dir->empty()) return;
    char host[256] = {0};
    process_.node = ::gethostname(host, sizeof(host) - 1) == 0 ? host : "";
    process_.pid = static_cast<long>(::getpid());
    path_ = *dir + "/nccl-roce." + std::to_string(::getpid()) + ".prom";
    writer_ = std::thread([this] { run(); });
  }
  live_.push_back(std::move(comm));
}

void MetricsTextfile::finish(const std::shared_ptr<TimedCommunicator>& comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = std::find(live_.begin(), live_.end(), comm);
  if (found == live_.end()) return;
  finished_.push_back((*found)->snapshot());
  if (finished_.size() > kMaxFinished) finished_.pop_front();
  live_.erase(found);
}

std::string MetricsTextfile::path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return path_;
}

Status MetricsTextfile::writeNow() {
  std::vector<profiler::CommunicatorTimings> all;
  std::string path;
  profiler::ProcessLabels process;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (path_.empty()) return Status::ok();
    path = path_;
    process = process_;
    all.assign(finished_.begin(), finished_.end());
    for (const auto& comm : live_) all.push_back(comm->snapshot());
  }
  return writeFileAtomically(path, profiler::renderOpenMetrics(process, all));
}

void MetricsTextfile::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
    lock.unlock();
    try {
      (void)writeNow();  // a full disk or a vanished directory: the next interval tries again
    } catch (...) {
    }
    lock.lock();
  }
}

}  // namespace nccl_roce::plugin

#include "plugin/metrics_textfile.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/file.h"
#include "common/settings.h"
#include "plugin/textfile_identity.h"

namespace nccl_roce::plugin {

namespace {

// The process's own textfile, removed when it exits: plain storage, as an exit handler may run after the
// destructors of this library's objects. The library is never unmapped (plugin/library_pin.h), so the handler
// stays callable. A child forked from the process inherits the handler, not the file: only its owner removes it.
char gTextfile[4096];
long gOwner = 0;

void removeOwnTextfile() {
  if (gOwner == static_cast<long>(::getpid())) ::unlink(gTextfile);
}

void removeAtExit(const std::string& path) {
  static std::once_flag registered;
  if (path.size() >= sizeof(gTextfile)) return;
  std::memcpy(gTextfile, path.c_str(), path.size() + 1);
  gOwner = static_cast<long>(::getpid());
  std::call_once(registered, [] { std::atexit(removeOwnTextfile); });
}

}  // namespace

MetricsTextfile::MetricsTextfile(std::chrono::milliseconds interval, Logger& logger,
                                 const WriteFailures* statisticsFailures)
    : failures_("metrics textfile", settings::kMetrics.name, logger),
      statisticsFailures_(statisticsFailures),
      writer_(interval, [this] {
        (void)writeNow();
        (void)sweepStale();
      }) {}

void MetricsTextfile::add(std::shared_ptr<const CommunicatorTelemetry> comm, const Environment& env) {
  std::string madeDir;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fileName_.empty()) {
      auto dir = env.get(settings::kMetrics.name);
      if (!dir || dir->empty()) return;
      char host[256] = {0};
      TextfileIdentity id = textfileIdentity(env, ::gethostname(host, sizeof(host) - 1) == 0 ? host : "",
                                             static_cast<long>(::getpid()), processStartTicks());
      process_ = id.labels;
      dir_ = *dir;
      fileName_ = id.fileName;
      removeAtExit(dir_ + "/" + fileName_);
      madeDir = dir_;
    }
    live_.push_back(std::move(comm));
  }
  if (!madeDir.empty()) {  // once per process: a directory that cannot be made is said at the first init
    StatusOr<UniqueFd> dir = openDirectoryForWriting(madeDir, /*create=*/true);
    failures_.report(path(), dir.status());
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
  {
    std::lock_guard<std::mutex> sweeping(sweeping_);
    sweep_.close();  // no descriptor of ours stays open on the directory while no communicator lives
  }
  (void)writeNow();  // the final figures, which the stopped writer would have written at its next round; no sweep
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
  return fileName_.empty() ? std::string() : dir_ + "/" + fileName_;
}

Status MetricsTextfile::writeNow() {
  std::lock_guard<std::mutex> writing(writing_);  // one write at a time: an older rendering never lands last
  std::vector<std::shared_ptr<const CommunicatorTelemetry>> live;
  std::vector<telemetry::CommunicatorSnapshot> all;
  std::string dir, fileName;
  telemetry::ProcessLabels process;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fileName_.empty()) return Status::ok();
    dir = dir_;
    fileName = fileName_;
    process = process_;
    all.assign(finished_.begin(), finished_.end());
    live = live_;
  }
  for (const auto& comm : live) all.push_back(comm->snapshot());  // without the lock: producers report under theirs
  telemetry::ProcessCounters counters;
  counters.statisticsWriteFailures = statisticsFailures_ != nullptr ? statisticsFailures_->failures() : 0;
  counters.metricsWriteFailures = failures_.failures();
  std::string text = telemetry::renderTextfile(process, all, counters);
  StatusOr<UniqueFd> at = openDirectoryForWriting(dir, /*create=*/true);
  Status written = at.isOk() ? writeFileAt(at->get(), fileName, text, dir + "/" + fileName) : at.status();
  failures_.report(dir + "/" + fileName, written);
  return written;
}

TextfileSweep::Round MetricsTextfile::sweepStale(const TextfileSweep::Limits& limits) {
  std::string dir, fileName;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fileName_.empty()) return {};
    dir = dir_;
    fileName = fileName_;
  }
  StatusOr<UniqueFd> at = openDirectoryForWriting(dir, /*create=*/false);  // as the writes: no link as the last part
  if (!at.isOk()) return {};
  std::lock_guard<std::mutex> sweeping(sweeping_);
  return sweep_.sweep(at->get(), fileName, std::chrono::system_clock::now(), kTextfileMaxAge, limits);
}

}  // namespace nccl_roce::plugin

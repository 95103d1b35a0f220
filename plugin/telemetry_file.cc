#include "plugin/telemetry_file.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "common/file.h"
#include "common/strings.h"
#include "telemetry/stats_file.h"

namespace nccl_roce::plugin {

namespace {

uint8_t bit(Producer producer) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(producer));
}

bool compatible(CommunicatorShape a, CommunicatorShape b) {
  return (a.nRanks == 0 || b.nRanks == 0 || a.nRanks == b.nRanks) &&
         (a.nNodes == 0 || b.nNodes == 0 || a.nNodes == b.nNodes);
}

telemetry::StatsFileHeader thisProcess() {
  telemetry::StatsFileHeader header;
  header.pid = static_cast<int64_t>(::getpid());
  char host[256] = {0};
  header.host = ::gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
  return header;
}

}  // namespace

TelemetryOptions telemetryOptionsFrom(const Environment& env) {
  TelemetryOptions options;
  options.interval = kDefaultCheckpointInterval;
  std::optional<std::string> text = env.get(settings::kStatsInterval.name);
  if (!text) return options;
  double seconds = -1;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, seconds, std::chars_format::fixed);
  if (error != std::errc() || stop != end || !(seconds >= 0) || seconds > 86400) {
    options.problem = "NCCL_ROCE_STATS_INTERVAL '" + *text +
                      "' is not a number of seconds from 0 to 86400; checkpointing the statistics file every " +
                      std::to_string(kDefaultCheckpointInterval.count()) + " s";
    return options;
  }
  options.interval = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
  if (seconds > 0 && options.interval.count() == 0) options.interval = std::chrono::milliseconds(1);
  return options;
}

TelemetryFiles::TelemetryFiles(TelemetryOptions options)
    : options_(std::move(options)),
      failures_("statistics file", settings::kStats.name, options_.logger != nullptr ? *options_.logger : nullLogger()),
      writer_(options_.interval, [this] { (void)writeAll(/*withLive=*/true, nullptr); }) {}

TelemetryFiles::~TelemetryFiles() {
  writer_.stop();
}

std::string TelemetryFiles::pathFor(const std::string& prefix, long pid) {
  return prefix + "." + std::to_string(pid) + ".json";
}

std::optional<std::string> TelemetryFiles::statsPathOf(const Environment& env) {
  std::optional<std::string> prefix = env.get(settings::kStats.name);
  if (!prefix || prefix->empty()) return std::nullopt;
  return pathFor(*prefix, static_cast<long>(::getpid()));
}

std::string TelemetryFiles::partPathFor(const std::string& path, uint32_t part) {
  std::string stem = endsWith(path, ".json") ? path.substr(0, path.size() - 5) : path;
  return stem + ".final-" + std::to_string(part) + ".json";
}

int64_t TelemetryFiles::nowMs() const {
  auto now = options_.clock ? options_.clock() : std::chrono::system_clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
}

uint64_t TelemetryFiles::pairWith(File& file, uint64_t commId, Producer producer, CommunicatorShape shape) const {
  auto open = [&](const Entry& e) { return !e.final() && !(e.joined & bit(producer)) && compatible(e.shape, shape); };
  const std::thread::id me = std::this_thread::get_id();
  for (auto it = file.entries.rbegin(); it != file.entries.rend(); ++it) {  // the latest first
    if (it->second.claimedOn == me && open(it->second) && it->second.telemetry->commId() == commId) return it->first;
  }
  if (commId == 0) return 0;
  for (const auto& [number, e] : file.entries) {  // the oldest first
    if (open(e) && e.telemetry->commId() == commId) return number;
  }
  return 0;
}

TelemetryEntry TelemetryFiles::claim(const std::string& path, uint64_t commId, Producer producer,
                                     CommunicatorShape shape) {
  TelemetryEntry claimed;
  bool firstOfPath = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [found, added] = files_.try_emplace(path);
    File& file = found->second;
    firstOfPath = added;
    if (uint64_t number = pairWith(file, commId, producer, shape)) {
      Entry& e = file.entries[number];
      e.joined |= bit(producer);
      if (e.shape.nRanks == 0) e.shape = shape;
      return {number, e.telemetry};
    }
    Entry fresh;
    fresh.telemetry = std::make_shared<CommunicatorTelemetry>(commId);
    fresh.joined = bit(producer);
    fresh.claimedOn = std::this_thread::get_id();
    fresh.shape = shape;
    claimed = {++numbered_, fresh.telemetry};
    file.entries.emplace(claimed.number, std::move(fresh));
    ++live_;
  }
  if (firstOfPath) {  // a few system calls, once per file: the pod's directory is there before its first checkpoint
    StatusOr<UniqueFd> dir = openDirectoryForWriting(splitPath(path).first, /*create=*/true);
    failures_.report(path, dir.status());
  }
  adjustWriter();
  return claimed;
}

std::string TelemetryFiles::renderFinal(uint64_t number, const Entry& entry) const {
  telemetry::StatsEntry e{number, /*live=*/false, nowMs(), entry.telemetry->snapshot()};
  return telemetry::renderStatsEntry(e);
}

Status TelemetryFiles::finish(const std::string& path, const TelemetryEntry& entry, Producer producer) {
  if (entry.telemetry) entry.telemetry->detach(producer);  // so nothing of the producer's runs from here on
  bool becameFinal = false, noneLive = false;
  Status lastWrite = Status::ok();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto file = files_.find(path);
    if (file == files_.end()) return Status::ok();
    auto found = file->second.entries.find(entry.number);
    if (found == file->second.entries.end() || found->second.final()) return Status::ok();
    Entry& e = found->second;
    e.finished |= bit(producer);
    lastWrite = file->second.lastWrite;
    if (e.finished != e.joined) return lastWrite;
    becameFinal = true;
    noneLive = --live_ == 0;
    if (e.telemetry->hasParts()) {
      // Every producer finished, so the snapshot reads their last parts only: nothing of theirs runs here.
      e.text = renderFinal(found->first, e);
      e.telemetry.reset();
      ++file->second.finals;
    } else {
      file->second.entries.erase(found);
    }
  }
  bool checkpoints = options_.interval.count() > 0;
  if (becameFinal && checkpoints && !noneLive && writer_.running()) {
    writer_.wake();
    return lastWrite;
  }
  adjustWriter();  // no live entry left: the writer stops here, and this thread writes
  return writeAll(/*withLive=*/checkpoints, checkpoints ? nullptr : &path);
}

Status TelemetryFiles::checkpoint() {
  return writeAll(/*withLive=*/true, nullptr);
}

std::string TelemetryFiles::takeProblem() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (problemTaken_) return "";
  problemTaken_ = true;
  return options_.problem;
}

size_t TelemetryFiles::entriesHeld() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t held = 0;
  for (const auto& [path, file] : files_) held += file.entries.size();
  return held;
}

size_t TelemetryFiles::liveEntries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_;
}

void TelemetryFiles::adjustWriter() {
  if (options_.interval.count() == 0) return;
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  bool wanted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted = live_ > 0;
  }
  if (wanted) {
    (void)writer_.start();  // no thread to be had: finish writes each final entry itself
  } else {
    writer_.stop();
  }
}

std::vector<TelemetryFiles::LiveText> TelemetryFiles::renderLive(const std::string* onlyPath) {
  struct Live {
    std::string path;
    uint64_t number;
    std::shared_ptr<CommunicatorTelemetry> telemetry;
  };
  std::vector<Live> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [path, file] : files_) {
      if (onlyPath != nullptr && path != *onlyPath) continue;
      for (const auto& [number, entry] : file.entries) {
        if (!entry.final()) live.push_back({path, number, entry.telemetry});
      }
    }
  }
  // Without the lock: producers report under their own locks. The stamp is taken first, so each live entry holds
  // at least what happened before it.
  int64_t stamp = nowMs();
  std::vector<LiveText> texts;
  for (const Live& l : live) {
    try {
      if (l.telemetry->hasParts()) {
        texts.push_back(
            {l.path, l.number, telemetry::renderStatsEntry({l.number, true, stamp, l.telemetry->snapshot()})});
      }
    } catch (...) {
      // Out of memory: this checkpoint goes without the entry; the next tries again.
    }
  }
  return texts;
}

TelemetryFiles::Rendered TelemetryFiles::render(File& file, const std::string& path,
                                                const std::vector<LiveText>& live) const {
  std::map<uint64_t, const std::string*> liveText;
  for (const LiveText& l : live) {
    if (l.path == path) liveText[l.number] = &l.text;
  }
  // Asked at each render, not cached: a child forked from this process names its entries with its own pid.
  const telemetry::StatsFileHeader header = thisProcess();
  Rendered out;
  size_t partSize = std::max<size_t>(options_.finalsKept, 1);
  size_t toMove = file.finals / partSize * partSize;  // the oldest, in whole parts
  std::vector<const std::string*> main, part;
  for (const auto& [number, entry] : file.entries) {
    if (entry.final() && out.moved.size() < toMove) {
      part.push_back(&entry.text);
      out.moved.push_back(number);
      if (part.size() == partSize) {
        out.parts.push_back(telemetry::renderStatsFile(header, part));
        part.clear();
      }
    } else if (entry.final()) {
      main.push_back(&entry.text);
    } else if (auto text = liveText.find(number); text != liveText.end()) {
      main.push_back(text->second);
    }
  }
  out.main = telemetry::renderStatsFile(header, main);
  return out;
}

Status TelemetryFiles::writeAll(bool withLive, const std::string* onlyPath) {
  std::lock_guard<std::mutex> writing(writing_);
  std::vector<LiveText> live = withLive ? renderLive(onlyPath) : std::vector<LiveText>();
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [path, file] : files_) {
      if (onlyPath == nullptr || path == *onlyPath) paths.push_back(path);
    }
  }
  Status result = Status::ok();
  for (const std::string& path : paths) {
    Status written = writeOne(path, live);
    if (!written.isOk()) result = written;
  }
  return result;
}

Status TelemetryFiles::writeOne(const std::string& path, const std::vector<LiveText>& live) {
  Rendered rendered;
  uint32_t firstPart;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    File& file = files_[path];
    rendered = render(file, path, live);
    firstPart = file.parts + 1;  // only writes (one at a time) change it
  }
  Status written = writeFile(path, firstPart, rendered);
  failures_.report(path, written);
  std::lock_guard<std::mutex> lock(mutex_);
  File& file = files_[path];
  file.lastWrite = written;
  if (!written.isOk()) return written;
  file.parts += static_cast<uint32_t>(rendered.parts.size());
  for (uint64_t number : rendered.moved) file.entries.erase(number);
  file.finals -= rendered.moved.size();
  return written;
}

Status TelemetryFiles::writeFile(const std::string& path, uint32_t firstPart, const Rendered& rendered) {
  // The parts first: killed between these writes, the moved entries are in a part and still in the main file,
  // which readers count once (by their numbers); the other order could lose them. A failed write leaves them
  // held, and the next write makes the same parts again.
  // The directory is made if missing (the per-pod directory of docs/kubernetes.md is not there at the pod's first
  // start), and opened for each write: one removed meanwhile is made again.
  auto [dir, name] = splitPath(path);
  StatusOr<UniqueFd> at = openDirectoryForWriting(dir, /*create=*/true);
  if (!at.isOk()) return at.status();
  for (size_t i = 0; i < rendered.parts.size(); ++i) {
    std::string part = partPathFor(path, firstPart + static_cast<uint32_t>(i));
    Status written = writeFileAt(at->get(), splitPath(part).second, rendered.parts[i], part);
    if (!written.isOk()) return written;
  }
  return writeFileAt(at->get(), name, rendered.main, path);
}

}  // namespace nccl_roce::plugin

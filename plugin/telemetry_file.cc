#include "plugin/telemetry_file.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "common/file.h"
#include "common/log.h"
#include "common/strings.h"

namespace nccl_roce::plugin {

namespace {

std::string dump(const nlohmann::ordered_json& value) {
  return value.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string hex(uint64_t value) { return format("0x%016llx", static_cast<unsigned long long>(value)); }

// 2026-03-01T12:34:56.789Z: UTC to the millisecond, a fixed width, so stamps also sort as text.
std::string utc(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm parts {};
  gmtime_r(&seconds, &parts);
  return format("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec, static_cast<int>(ms % 1000));
}

// {"schema": ..., "pid": ..., "host": ..., "communicators": [ ENTRIES ]}, the entries already serialised.
std::string document(const std::vector<const std::string*>& entries) {
  nlohmann::ordered_json header;
  header["schema"] = kTelemetrySchema;
  header["pid"] = static_cast<long>(::getpid());
  char host[256] = {0};
  header["host"] = ::gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
  std::string text = dump(header);
  text.pop_back();  // the closing brace: the communicators go inside the same object
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  text += ",\n \"communicators\": [";
  for (size_t i = 0; i < entries.size(); ++i) text += (i == 0 ? "\n" : ",\n") + *entries[i];
  return text + "\n ]\n}\n";
}

}  // namespace

TelemetryOptions telemetryOptionsFrom(const Environment& env) {
  TelemetryOptions options;
  options.interval = kDefaultCheckpointInterval;
  std::optional<std::string> text = env.get("NCCL_ROCE_STATS_INTERVAL");
  if (!text) return options;
  double seconds = -1;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, seconds, std::chars_format::fixed);
  if (error != std::errc() || stop != end || !(seconds >= 0) || seconds > 86400) {
    options.problem = "NCCL_ROCE_STATS_INTERVAL '" + *text +
                      "' is not a number of seconds from 0 to 86400; checkpointing the statistics file every 60 s";
    return options;
  }
  options.interval = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
  if (seconds > 0 && options.interval.count() == 0) options.interval = std::chrono::milliseconds(1);
  return options;
}

TelemetryFiles::TelemetryFiles(TelemetryOptions options)
    : options_(std::move(options)), writer_(options_.interval, [this] { (void)writeAll(/*withLive=*/true, nullptr); }) {}

TelemetryFiles::~TelemetryFiles() { writer_.stop(); }

std::string TelemetryFiles::pathFor(const std::string& prefix, long pid) {
  return prefix + "." + std::to_string(pid) + ".json";
}

std::string TelemetryFiles::partPathFor(const std::string& path, uint32_t part) {
  std::string stem = endsWith(path, ".json") ? path.substr(0, path.size() - 5) : path;
  return stem + ".final-" + std::to_string(part) + ".json";
}

std::chrono::system_clock::time_point TelemetryFiles::now() const {
  return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

TelemetryEntry TelemetryFiles::claim(const std::string& path, uint64_t commId, const std::string& producer) {
  TelemetryEntry claimed{commId, 0};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    File& file = files_[path];
    for (auto& [number, entry] : file.entries) {
      if (entry.final() || entry.commId != commId) continue;
      bool joined = false;
      for (const Producer& p : entry.producers) joined = joined || p.name == producer;
      if (joined) continue;
      entry.producers.push_back({producer, {}, false});
      return {commId, number};
    }
    Entry fresh;
    fresh.commId = commId;
    fresh.producers.push_back({producer, {}, false});
    claimed.number = ++numbered_;
    file.entries.emplace(claimed.number, std::move(fresh));
    ++live_;
  }
  adjustWriter();
  return claimed;
}

void TelemetryFiles::watch(const std::string& path, const TelemetryEntry& entry, const std::string& producer,
                           FieldsNow now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return;
  auto found = file->second.entries.find(entry.number);
  if (found == file->second.entries.end()) return;
  for (Producer& p : found->second.producers) {
    if (p.name == producer && !p.finished) p.now = std::move(now);
  }
}

Status TelemetryFiles::finish(const std::string& path, const TelemetryEntry& entry, const std::string& producer,
                              const nlohmann::ordered_json& fields) {
  bool becameFinal = false, noneLive = false;
  Status lastWrite = Status::ok();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto file = files_.find(path);
    if (file == files_.end()) return Status::ok();
    auto found = file->second.entries.find(entry.number);
    if (found == file->second.entries.end() || found->second.final()) return Status::ok();
    Entry& e = found->second;
    bool allFinished = true;
    for (Producer& p : e.producers) {
      if (p.name == producer) {
        p.finished = true;
        p.now = nullptr;  // what it shared (decision counts, a tracker) goes with it
      }
      allFinished = allFinished && p.finished;
    }
    if (!fields.empty()) {
      e.fields.update(fields);
      e.hasFields = true;
      e.updated = now();
    }
    if (allFinished) {
      becameFinal = true;
      --live_;
      noneLive = live_ == 0;
      if (e.hasFields) {
        e.text = serialise(found->first, e);
        e.fields = nlohmann::ordered_json();
        e.producers.clear();
        e.rules = nullptr;
        e.decisions = nullptr;
        ++file->second.finals;
      } else {
        file->second.entries.erase(found);
      }
    }
    lastWrite = file->second.lastWrite;
  }
  if (!becameFinal) return lastWrite;
  bool checkpoints = options_.interval.count() > 0;
  if (checkpoints && !noneLive && writer_.running()) {
    writer_.wake();
    return lastWrite;
  }
  adjustWriter();  // no live entry left: the writer stops here, and this thread writes
  return writeAll(/*withLive=*/checkpoints, checkpoints ? nullptr : &path);
}

Status TelemetryFiles::checkpoint() { return writeAll(/*withLive=*/true, nullptr); }

void TelemetryFiles::attachRules(const std::string& path, const TelemetryEntry& entry, RuleLookup lookup) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return;
  auto found = file->second.entries.find(entry.number);
  if (found != file->second.entries.end() && !found->second.final()) found->second.rules = std::move(lookup);
}

RuleLookup TelemetryFiles::rulesOf(const std::string& path, const TelemetryEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return {};
  auto found = file->second.entries.find(entry.number);
  return found == file->second.entries.end() ? RuleLookup() : found->second.rules;
}

void TelemetryFiles::attachDecisions(const std::string& path, const TelemetryEntry& entry, DecisionsLookup lookup) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return;
  auto found = file->second.entries.find(entry.number);
  if (found != file->second.entries.end() && !found->second.final()) found->second.decisions = std::move(lookup);
}

DecisionsLookup TelemetryFiles::decisionsOf(const std::string& path, const TelemetryEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return {};
  auto found = file->second.entries.find(entry.number);
  return found == file->second.entries.end() ? DecisionsLookup() : found->second.decisions;
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

std::string TelemetryFiles::serialise(uint64_t number, const Entry& entry) const {
  nlohmann::ordered_json out;
  out["entry"] = number;
  bool final = true;  // every producer finished (what finish() serialises)
  for (const Producer& p : entry.producers) final = final && p.finished;
  out["state"] = final ? "final" : "live";
  out["updated"] = utc(entry.updated);
  out["comm_id"] = hex(entry.commId);
  out.update(entry.fields);
  return dump(out);
}

TelemetryFiles::Rendered TelemetryFiles::render(File& file, bool withLive) const {
  Rendered out;
  size_t partSize = std::max<size_t>(options_.finalsKept, 1);
  size_t toMove = file.finals / partSize * partSize;  // the oldest, in whole parts
  std::vector<const std::string*> main, part;
  std::vector<std::string> liveTexts;  // serialised now; reserved so the pointers stay valid
  liveTexts.reserve(file.entries.size());
  for (const auto& [number, entry] : file.entries) {
    if (entry.final() && out.moved.size() < toMove) {
      part.push_back(&entry.text);
      out.moved.push_back(number);
      if (part.size() == partSize) {
        out.parts.push_back(document(part));
        part.clear();
      }
    } else if (entry.final()) {
      main.push_back(&entry.text);
    } else if (withLive && entry.hasFields) {
      liveTexts.push_back(serialise(number, entry));
      main.push_back(&liveTexts.back());
    }
  }
  out.main = document(main);
  return out;
}

Status TelemetryFiles::writeAll(bool withLive, const std::string* onlyPath) {
  std::lock_guard<std::mutex> writing(writing_);
  // What each live producer says now, asked without the lock: producers lock their own state, and the profiler's
  // fields look up the tuner's rules here.
  struct Ask {
    std::string path;
    uint64_t number;
    std::string producer;
    FieldsNow now;
    nlohmann::ordered_json answer;
  };
  std::vector<Ask> asks;
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [path, file] : files_) {
      if (onlyPath != nullptr && path != *onlyPath) continue;
      paths.push_back(path);
      if (!withLive) continue;
      for (const auto& [number, entry] : file.entries) {
        for (const Producer& p : entry.producers) {
          if (!p.finished && p.now) asks.push_back({path, number, p.name, p.now, {}});
        }
      }
    }
  }
  auto stamp = now();  // taken first: each live entry holds at least what happened before it
  for (Ask& ask : asks) {
    try {
      ask.answer = ask.now();
    } catch (...) {
      ask.answer = nullptr;  // out of memory: the entry keeps what it had
    }
    ask.now = nullptr;
  }
  Status result = Status::ok();
  for (const std::string& path : paths) {
    Rendered rendered;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      File& file = files_[path];
      for (Ask& ask : asks) {
        if (ask.path != path || !ask.answer.is_object()) continue;
        auto found = file.entries.find(ask.number);
        if (found == file.entries.end() || found->second.final()) continue;
        for (const Producer& p : found->second.producers) {
          if (p.name != ask.producer || p.finished) continue;
          found->second.fields.update(ask.answer);
          found->second.hasFields = true;
          found->second.updated = stamp;
        }
      }
      rendered = render(file, withLive);
    }
    uint32_t firstPart;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      firstPart = files_[path].parts + 1;  // only writes (one at a time) change it
    }
    Status written = writeFile(path, firstPart, rendered);
    std::lock_guard<std::mutex> lock(mutex_);
    File& file = files_[path];
    file.lastWrite = written;
    if (!written.isOk()) {
      result = written;
      continue;
    }
    file.parts += static_cast<uint32_t>(rendered.parts.size());
    for (uint64_t number : rendered.moved) file.entries.erase(number);
    file.finals -= rendered.moved.size();
  }
  return result;
}

Status TelemetryFiles::writeFile(const std::string& path, uint32_t firstPart, const Rendered& rendered) {
  // The parts first: killed between these writes, the moved entries are in a part and still in the main file,
  // which readers count once (by their numbers); the other order could lose them. A failed write leaves them
  // held, and the next write makes the same parts again.
  for (size_t i = 0; i < rendered.parts.size(); ++i) {
    Status part = writeFileAtomically(partPathFor(path, firstPart + static_cast<uint32_t>(i)), rendered.parts[i]);
    if (!part.isOk()) return part;
  }
  return writeFileAtomically(path, rendered.main);
}

}  // namespace nccl_roce::plugin

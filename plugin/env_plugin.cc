#include "plugin/env_plugin.h"

#include <cstdlib>

namespace nccl_roce::plugin {

void EnvPlugin::init(int ncclMajor, int ncclMinor, int ncclPatch, const char* suffix,
                     ncclDebugLogger_t logFunction) noexcept {
  logger_.setFunction(logFunction);
  try {
    std::lock_guard<std::mutex> once(initMutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (initialized_) return;
      initialized_ = true;
    }
    ServedSettings served = resolveWithin(resolver_, env_, deadline_, logger_);
    std::string version = std::to_string(ncclMajor) + "." + std::to_string(ncclMinor) + "." +
                          std::to_string(ncclPatch) + (suffix ? suffix : "");
    std::vector<PendingLine> lines = linesFor(served, version);
    serve(std::move(served), std::move(lines), logFunction != nullptr);
  } catch (...) {
    // Out of memory: serve nothing (every variable passes through) and say so if the line can be written.
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      served_.clear();
    } catch (...) {
    }
    NCCL_ROCE_WARN(logger_, kLogInit | kLogEnv, "env: initialisation failed; every variable passes through");
  }
}

std::vector<EnvPlugin::PendingLine> EnvPlugin::linesFor(const ServedSettings& served, const std::string& version) {
  std::vector<PendingLine> lines;
  if (!served.failure.empty()) {
    lines.push_back({LogLevel::kWarn, "env: " + served.failure + "; NCCL " + version + " runs with its own defaults"});
  }
  lines.push_back({LogLevel::kInfo, "env: serving " + std::to_string(served.values.size()) +
                                        " resolved variable(s) to NCCL " + version +
                                        "; everything else passes through, and variables you set always win"});
  for (const auto& line : served.lines) lines.push_back({LogLevel::kInfo, "env: " + line});
  return lines;
}

void EnvPlugin::serve(ServedSettings served, std::vector<PendingLine> lines, bool haveLogger) {
  std::lock_guard<std::mutex> lock(mutex_);
  served_ = std::move(served.values);
  if (!haveLogger) {
    pending_ = std::move(lines);  // NCCL's env v1 passes no logger
    return;
  }
  for (const auto& line : lines) {
    logf(logger_, line.level, kLogInit | kLogEnv, __FILE__, __LINE__, "%s", line.text.c_str());
  }
}

void EnvPlugin::flushPendingLog(Logger& log) {
  std::vector<PendingLine> lines;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lines.swap(pending_);
  }
  for (const auto& line : lines) logf(log, line.level, kLogInit | kLogEnv, __FILE__, __LINE__, "%s", line.text.c_str());
}

const char* EnvPlugin::getEnv(const char* name) noexcept {
  if (name == nullptr) return nullptr;
  try {
    return lookup(name);
  } catch (...) {
    return std::getenv(name);  // NOLINT(concurrency-mt-unsafe): what NCCL's own getenv would read
  }
}

const char* EnvPlugin::lookup(const char* name) {
  std::string key(name);
  std::optional<std::string> value = env_.get(key);  // the user's (or NCCL's config file's) value wins
  std::lock_guard<std::mutex> lock(mutex_);
  if (!value) {
    auto it = served_.find(key);
    if (it == served_.end()) return nullptr;
    value = it->second;
  }
  std::list<std::string>& versions = returned_[key];
  if (versions.empty() || versions.back() != *value) versions.push_back(std::move(*value));
  return versions.back().c_str();
}

void EnvPlugin::finalize() noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    returned_.clear();
  } catch (...) {
    // The lock could not be taken: the values stay, which only costs memory.
  }
}

bool EnvPlugin::serving() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

}  // namespace nccl_roce::plugin

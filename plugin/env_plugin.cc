#include "plugin/env_plugin.h"

namespace nccl_roce::plugin {

void EnvPlugin::init(int ncclMajor, int ncclMinor, int ncclPatch, const char* suffix,
                     ncclDebugLogger_t logFunction) noexcept {
  logger_.setFunction(logFunction);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (initialized_) return;
    initialized_ = true;
  }
  ServedSettings served;
  try {
    served = resolver_(env_, logger_);
  } catch (...) {
    served = ServedSettings();
    served.failure = "resolution failed";
  }
  std::string version = std::to_string(ncclMajor) + "." + std::to_string(ncclMinor) + "." + std::to_string(ncclPatch) +
                        (suffix ? suffix : "");
  std::vector<PendingLine> lines;
  if (!served.failure.empty()) {
    lines.push_back({LogLevel::kWarn, "env: " + served.failure + "; NCCL " + version + " runs with its own defaults"});
  }
  lines.push_back({LogLevel::kInfo, "env: serving " + std::to_string(served.values.size()) +
                                        " resolved variable(s) to NCCL " + version +
                                        "; everything else passes through, and variables you set always win"});
  for (const auto& line : served.lines) lines.push_back({LogLevel::kInfo, "env: " + line});
  std::lock_guard<std::mutex> lock(mutex_);
  served_ = std::move(served.values);
  if (logFunction != nullptr) {
    for (const auto& line : lines) logf(logger_, line.level, kLogInit | kLogEnv, __FILE__, __LINE__, "%s", line.text.c_str());
  } else {
    pending_ = std::move(lines);
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
  } catch (...) {
    return nullptr;
  }
}

void EnvPlugin::finalize() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  returned_.clear();
}

bool EnvPlugin::serving() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

EnvPlugin& processEnvPlugin() {
  // Never destroyed: NCCL may read variables from atexit handlers after static destructors have run.
  static EnvPlugin* instance = new EnvPlugin(processEnvironment(), resolveServedSettings);
  return *instance;
}

}  // namespace nccl_roce::plugin

#include "plugin/telemetry_file.h"

#include <unistd.h>

#include "common/file.h"

namespace nccl_roce::plugin {

namespace {

std::string serialise(const nlohmann::ordered_json& value) {
  return value.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string TelemetryFiles::pathFor(const std::string& prefix, long pid) {
  return prefix + "." + std::to_string(pid) + ".json";
}

TelemetryEntry TelemetryFiles::claim(const std::string& path, uint64_t commId, const std::string& producer) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t& claimed = files_[path].claims[{commId, producer}];
  return {commId, claimed++};
}

Status TelemetryFiles::report(const std::string& path, const TelemetryEntry& entry,
                                  const nlohmann::ordered_json& fields) {
  std::lock_guard<std::mutex> lock(mutex_);
  File& file = files_[path];
  auto [position, added] = file.order.emplace(entry, file.reported.size());
  if (added) file.reported.emplace_back();
  Reported& reported = file.reported[position->second];
  reported.fields.update(fields);
  reported.text = serialise(reported.fields);
  return write(path, file);
}

void TelemetryFiles::attachRules(const std::string& path, const TelemetryEntry& entry, RuleLookup lookup) {
  std::lock_guard<std::mutex> lock(mutex_);
  files_[path].rules[entry] = std::move(lookup);
}

RuleLookup TelemetryFiles::rulesOf(const std::string& path, const TelemetryEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return {};
  auto found = file->second.rules.find(entry);
  return found == file->second.rules.end() ? RuleLookup() : found->second;
}

void TelemetryFiles::attachDecisions(const std::string& path, const TelemetryEntry& entry, DecisionsLookup lookup) {
  std::lock_guard<std::mutex> lock(mutex_);
  files_[path].decisions[entry] = std::move(lookup);
}

DecisionsLookup TelemetryFiles::decisionsOf(const std::string& path, const TelemetryEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto file = files_.find(path);
  if (file == files_.end()) return {};
  auto found = file->second.decisions.find(entry);
  return found == file->second.decisions.end() ? DecisionsLookup() : found->second;
}

Status TelemetryFiles::write(const std::string& path, const File& file) {
  nlohmann::ordered_json header;
  header["schema"] = kTelemetrySchema;
  header["pid"] = static_cast<long>(::getpid());
  char host[256] = {0};
  header["host"] = ::gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
  std::string head = serialise(header);
  head.pop_back();  // the closing brace: the communicators go inside the same object
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  std::string list;
  for (const Reported& reported : file.reported) list += (list.empty() ? "\n" : ",\n") + reported.text;
  return writeFileAtomically(path, head + ",\n \"communicators\": [" + list + "\n ]\n}\n");
}

}  // namespace nccl_roce::plugin

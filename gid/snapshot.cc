#include "gid/snapshot.h"

#include <unistd.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "common/file.h"
#include "gid/render.h"
#include "gid/resolution_json.h"

namespace nccl_roce::gid {

namespace {

constexpr size_t kMaxSnapshotBytes = 64 << 20;
constexpr int kFormatVersion = 1;

// Wraps the real file system and writes every answer into the snapshot.
class RecordingFileAccess final : public FileAccess {
 public:
  RecordingFileAccess(Snapshot& snapshot, std::string root) : snapshot_(snapshot), root_(std::move(root)) {}

  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override {
    auto result = realFileAccess().read(path, maxBytes);
    if (result.isOk()) {
      snapshot_.files[rel(path)] = *result;
    } else {
      snapshot_.errors[rel(path)] = statusCodeName(result.status().code());
    }
    return result;
  }
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override {
    auto result = realFileAccess().list(path, maxEntries);
    if (result.isOk()) {
      snapshot_.directories[rel(path)] = *result;
    } else {
      snapshot_.errors[rel(path)] = statusCodeName(result.status().code());
    }
    return result;
  }
  StatusOr<std::string> readLink(const std::string& path) const override {
    auto result = realFileAccess().readLink(path);
    if (result.isOk()) snapshot_.links[rel(path)] = *result;
    return result;
  }
  bool exists(const std::string& path) const override {
    bool found = realFileAccess().exists(path);
    if (found) snapshot_.existing.insert(rel(path));
    return found;
  }

 private:
  std::string rel(const std::string& path) const {
    return path.compare(0, root_.size() + 1, root_ + "/") == 0 ? path.substr(root_.size() + 1) : path;
  }
  Snapshot& snapshot_;
  std::string root_;
};

void walkPort(const SysfsReader& sysfs, const std::string& base) {
  for (const char* attr : {"state", "phys_state", "link_layer", "rate"}) (void)sysfs.attribute(base + "/" + attr);
  for (const char* table : {"gids", "gid_attrs/types", "gid_attrs/ndevs"}) {
    auto entries = sysfs.entries(base + "/" + table);
    if (!entries.isOk()) continue;
    for (const auto& entry : *entries) (void)sysfs.attribute(base + "/" + table + "/" + entry);
  }
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  struct tm parts;
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

Status statusFromName(const std::string& name, const std::string& path) {
  for (StatusCode code : {StatusCode::kNotFound, StatusCode::kInvalidArgument, StatusCode::kPermissionDenied,
                          StatusCode::kTooLarge, StatusCode::kIoError}) {
    if (name == statusCodeName(code)) return Status(code, path + ": " + name + " (recorded)");
  }
  return Status(StatusCode::kIoError, path + ": " + name + " (recorded)");
}

}  // namespace

Snapshot captureSnapshot(const std::string& sysfsRoot, const AddressSource* addresses, const Environment& env) {
  Snapshot snapshot;
  RecordingFileAccess recorder(snapshot, sysfsRoot);
  SysfsReader sysfs(sysfsRoot, recorder);
  (void)sysfs.entries("class/net");
  auto devices = sysfs.entries("class/infiniband");
  if (devices.isOk()) {
    for (const auto& device : *devices) {
      std::string base = "class/infiniband/" + device;
      (void)sysfs.linkTarget(base + "/device");
      (void)sysfs.attribute(base + "/device/numa_node");
      (void)sysfs.exists(base + "/device/physfn");
      auto ports = sysfs.entries(base + "/ports");
      if (!ports.isOk()) continue;
      for (const auto& port : *ports) walkPort(sysfs, base + "/ports/" + port);
    }
  }
  if (addresses != nullptr) {
    auto list = addresses->list();
    if (list.isOk()) snapshot.addresses = *list;
  }
  for (const auto& name : resolvedVariableNames()) {
    if (auto value = env.get(name)) snapshot.environment[name] = *value;
  }
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) == 0) snapshot.hostname = host;
  snapshot.capturedAt = utcNow();
  return snapshot;
}

std::string snapshotToJsonText(const Snapshot& s) {
  nlohmann::ordered_json j;
  j["nccl_roce_snapshot"] = kFormatVersion;
  j["hostname"] = s.hostname;
  j["captured_at"] = s.capturedAt;
  j["files"] = s.files;
  j["errors"] = s.errors;
  j["directories"] = s.directories;
  j["links"] = s.links;
  j["existing"] = s.existing;
  if (s.addresses) {
    j["addresses"] = nlohmann::ordered_json::array();
    for (const auto& a : *s.addresses) {
      j["addresses"].push_back({{"ifname", a.ifname}, {"address", a.address.toAddressString() + "/" +
                                                                        std::to_string(a.prefixLength)}});
    }
  } else {
    j["addresses"] = nullptr;
  }
  j["environment"] = s.environment;
  return dumpJson(j, 1) + "\n";
}

StatusOr<Snapshot> snapshotFromJsonText(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status(StatusCode::kParseError, "not a JSON object");
  if (!j.contains("nccl_roce_snapshot") || j["nccl_roce_snapshot"] != kFormatVersion) {
    return Status(StatusCode::kParseError, "not an nccl-roce snapshot (format version 1)");
  }
  Snapshot s;
  auto stringMap = [&](const char* key, std::map<std::string, std::string>& out) -> bool {
    if (!j.contains(key) || !j[key].is_object()) return false;
    for (auto it = j[key].begin(); it != j[key].end(); ++it) {
      if (!it.value().is_string()) return false;
      out[it.key()] = it.value().get<std::string>();
    }
    return true;
  };
  if (!stringMap("files", s.files) || !stringMap("errors", s.errors) || !stringMap("links", s.links) ||
      !stringMap("environment", s.environment)) {
    return Status(StatusCode::kParseError, "files, errors, links and environment must map names to strings");
  }
  if (!j.contains("directories") || !j["directories"].is_object()) {
    return Status(StatusCode::kParseError, "directories must map names to lists");
  }
  for (auto it = j["directories"].begin(); it != j["directories"].end(); ++it) {
    if (!it.value().is_array()) return Status(StatusCode::kParseError, "directory " + it.key() + " is not a list");
    for (const auto& name : it.value()) {
      if (!name.is_string()) return Status(StatusCode::kParseError, "directory " + it.key() + " lists a non-string");
      s.directories[it.key()].push_back(name.get<std::string>());
    }
  }
  if (j.contains("existing") && j["existing"].is_array()) {
    for (const auto& path : j["existing"]) {
      if (path.is_string()) s.existing.insert(path.get<std::string>());
    }
  }
  if (j.contains("addresses") && j["addresses"].is_array()) {
    s.addresses.emplace();
    for (const auto& a : j["addresses"]) {
      if (!a.is_object() || !a.contains("ifname") || !a["ifname"].is_string() || !a.contains("address") ||
          !a["address"].is_string()) {
        return Status(StatusCode::kParseError, "addresses must be {ifname, address} objects");
      }
      auto parsed = parseCidr(a["ifname"].get<std::string>(), a["address"].get<std::string>());
      if (!parsed.isOk()) return Status(StatusCode::kParseError, "addresses: " + parsed.status().message());
      s.addresses->push_back(*parsed);
    }
  }
  if (j.contains("hostname") && j["hostname"].is_string()) s.hostname = j["hostname"];
  if (j.contains("captured_at") && j["captured_at"].is_string()) s.capturedAt = j["captured_at"];
  return s;
}

StatusOr<Snapshot> readSnapshotFile(const std::string& path) {
  auto text = readFileBounded(path, kMaxSnapshotBytes);
  if (!text.isOk()) return text.status();
  auto snapshot = snapshotFromJsonText(*text);
  if (!snapshot.isOk()) return Status(StatusCode::kParseError, path + ": " + snapshot.status().message());
  return snapshot;
}

std::optional<std::string> SnapshotFileAccess::relative(const std::string& path) const {
  if (path.compare(0, root_.size() + 1, root_ + "/") != 0) return std::nullopt;
  return path.substr(root_.size() + 1);
}

Status SnapshotFileAccess::recordedError(const std::string& rel, const std::string& full) const {
  auto error = snapshot_.errors.find(rel);
  if (error != snapshot_.errors.end()) return statusFromName(error->second, full);
  return Status(StatusCode::kNotFound, full + ": not in the snapshot");
}

StatusOr<std::string> SnapshotFileAccess::read(const std::string& path, size_t maxBytes) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path);
  auto file = snapshot_.files.find(*rel);
  if (file == snapshot_.files.end()) return recordedError(*rel, path);
  if (file->second.size() > maxBytes) return Status(StatusCode::kTooLarge, path);
  return file->second;
}

StatusOr<std::vector<std::string>> SnapshotFileAccess::list(const std::string& path, size_t maxEntries) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path);
  auto dir = snapshot_.directories.find(*rel);
  if (dir == snapshot_.directories.end()) return recordedError(*rel, path);
  if (dir->second.size() > maxEntries) return Status(StatusCode::kTooLarge, path);
  return dir->second;
}

StatusOr<std::string> SnapshotFileAccess::readLink(const std::string& path) const {
  auto rel = relative(path);
  if (!rel) return Status(StatusCode::kNotFound, path);
  auto link = snapshot_.links.find(*rel);
  if (link == snapshot_.links.end()) return Status(StatusCode::kNotFound, path + ": not in the snapshot");
  return link->second;
}

bool SnapshotFileAccess::exists(const std::string& path) const {
  auto rel = relative(path);
  return rel && (snapshot_.existing.count(*rel) != 0 || snapshot_.files.count(*rel) != 0 ||
                 snapshot_.directories.count(*rel) != 0);
}

}  // namespace nccl_roce::gid

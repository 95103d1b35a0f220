// The snapshot file format (version 1): {"nccl_roce_snapshot": 1, "hostname", "captured_at", "files",
// "errors", "directories", "links", "existing", "addresses", "environment"}. An error is "<code name>" or
// "<code name>: <detail>" (snapshots before the recording file access hold the name alone).
#include <nlohmann/json.hpp>

#include "common/file.h"
#include "gid/resolution_json.h"
#include "gid/snapshot.h"

namespace nccl_roce::gid {

namespace {

constexpr size_t kMaxSnapshotBytes = 64 << 20;
constexpr int kFormatVersion = 1;

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

OrderedJson addressesToJson(const std::optional<std::vector<InterfaceAddress>>& addresses) {
  if (!addresses) return nullptr;
  OrderedJson list = OrderedJson::array();
  for (const auto& a : *addresses) {
    list.push_back(
        {{"ifname", a.ifname}, {"address", a.address.toAddressString() + "/" + std::to_string(a.prefixLength)}});
  }
  return list;
}

bool readStringMap(const Json& j, const char* key, std::map<std::string, std::string>& out) {
  if (!j.contains(key) || !j[key].is_object()) return false;
  for (auto it = j[key].begin(); it != j[key].end(); ++it) {
    if (!it.value().is_string()) return false;
    out[it.key()] = it.value().get<std::string>();
  }
  return true;
}

Status readDirectories(const Json& j, std::map<std::string, std::vector<std::string>>& out) {
  if (!j.contains("directories") || !j["directories"].is_object()) {
    return Status(StatusCode::kParseError, "directories must map names to lists");
  }
  for (auto it = j["directories"].begin(); it != j["directories"].end(); ++it) {
    if (!it.value().is_array()) return Status(StatusCode::kParseError, "directory " + it.key() + " is not a list");
    std::vector<std::string>& entries = out[it.key()];
    for (const auto& name : it.value()) {
      if (!name.is_string()) return Status(StatusCode::kParseError, "directory " + it.key() + " lists a non-string");
      entries.push_back(name.get<std::string>());
    }
  }
  return Status::ok();
}

Status readAddresses(const Json& j, std::optional<std::vector<InterfaceAddress>>& out) {
  if (!j.contains("addresses") || !j["addresses"].is_array()) return Status::ok();
  out.emplace();
  for (const auto& a : j["addresses"]) {
    if (!a.is_object() || !a.contains("ifname") || !a["ifname"].is_string() || !a.contains("address") ||
        !a["address"].is_string()) {
      return Status(StatusCode::kParseError, "addresses must be {ifname, address} objects");
    }
    auto parsed = parseCidr(a["ifname"].get<std::string>(), a["address"].get<std::string>());
    if (!parsed.isOk()) return Status(StatusCode::kParseError, "addresses: " + parsed.status().message());
    out->push_back(*parsed);
  }
  return Status::ok();
}

Status readFileRecord(const Json& j, FileRecord& record) {
  std::map<std::string, std::string> errors;
  if (!readStringMap(j, "files", record.files) || !readStringMap(j, "errors", errors) ||
      !readStringMap(j, "links", record.links)) {
    return Status(StatusCode::kParseError, "files, errors, links and environment must map names to strings");
  }
  for (const auto& [path, text] : errors) record.errors[path] = recordedErrorFromText(text);
  if (j.contains("existing") && j["existing"].is_array()) {
    for (const auto& path : j["existing"]) {
      if (path.is_string()) record.existing.insert(path.get<std::string>());
    }
  }
  return readDirectories(j, record.directories);
}

}  // namespace

std::string snapshotToJsonText(const Snapshot& s) {
  OrderedJson j;
  j["nccl_roce_snapshot"] = kFormatVersion;
  j["hostname"] = s.hostname;
  j["captured_at"] = s.capturedAt;
  j["files"] = s.sysfs.files;
  j["errors"] = OrderedJson::object();
  for (const auto& [path, error] : s.sysfs.errors) j["errors"][path] = recordedErrorText(error);
  j["directories"] = s.sysfs.directories;
  j["links"] = s.sysfs.links;
  j["existing"] = s.sysfs.existing;
  j["addresses"] = addressesToJson(s.addresses);
  j["environment"] = s.environment;
  return dumpJson(j, 1) + "\n";
}

StatusOr<Snapshot> snapshotFromJsonText(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status(StatusCode::kParseError, "not a JSON object");
  if (!j.contains("nccl_roce_snapshot") || j["nccl_roce_snapshot"] != kFormatVersion) {
    return Status(StatusCode::kParseError, "not an nccl-roce snapshot (format version 1)");
  }
  Snapshot s;
  if (!readStringMap(j, "environment", s.environment)) {
    return Status(StatusCode::kParseError, "files, errors, links and environment must map names to strings");
  }
  if (Status status = readFileRecord(j, s.sysfs); !status.isOk()) return status;
  if (Status status = readAddresses(j, s.addresses); !status.isOk()) return status;
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

}  // namespace nccl_roce::gid

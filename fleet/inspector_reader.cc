#include "fleet/inspector_reader.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/file.h"
#include "tuner/decision_stats.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::json;

constexpr int kAllGather = 2, kReduceScatter = 3;  // tuner indices

// The top-level JSON objects of `text`, each with the line it starts on: braces counted outside strings.
std::vector<std::pair<size_t, std::string>> topLevelObjects(const std::string& text, std::string* error) {
  std::vector<std::pair<size_t, std::string>> objects;
  size_t line = 1, startLine = 0, start = 0;
  int depth = 0;
  bool inString = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') ++line;
    if (inString) {
      escaped = !escaped && c == '\\';
      if (c == '"' && !escaped) inString = false;
      if (c != '\\') escaped = false;
      continue;
    }
    if (c == '"') inString = true;
    if (c == '{' && depth++ == 0) start = i, startLine = line;
    if (c == '}' && --depth == 0) objects.emplace_back(startLine, text.substr(start, i - start + 1));
    if (depth < 0 || (depth == 0 && c != '}' && !std::isspace(static_cast<unsigned char>(c)))) {
      *error = "line " + std::to_string(line) + ": not a JSON object";
      return {};
    }
  }
  if (depth != 0) *error = "line " + std::to_string(startLine) + ": object not closed (truncated?)";
  return objects;
}

bool hexId(const json& value, uint64_t* out) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  if (text.size() < 3 || text.size() > 18 || text.compare(0, 2, "0x") != 0) return false;
  size_t used = 0;
  try {
    *out = std::stoull(text.substr(2), &used, 16);
  } catch (...) {
    return false;
  }
  return used == text.size() - 2;
}

// One collective's record into its communicator's; false with *error when it does not read.
bool addCollective(const json& o, std::map<std::pair<uint64_t, int>, CommunicatorRecord>& records,
                   const std::string& file, std::string* error) {
  const json& header = o.contains("header") ? o["header"] : json();
  const json& metadata = o.contains("metadata") ? o["metadata"] : json();
  std::string version = metadata.is_object() ? metadata.value("inspector_output_format_version", "") : "";
  if (version != kInspectorFormat) {
    *error = "Inspector output format '" + version + "', this version reads " + kInspectorFormat;
    return false;
  }
  if (!o.contains("coll_perf")) return true;  // point-to-point
  const json& perf = o["coll_perf"];
  uint64_t id = 0;
  if (!header.is_object() || !hexId(header.value("id", json()), &id) || !header.value("rank", json()).is_number_integer() ||
      !perf.is_object() || !perf.value("coll", json()).is_string() ||
      !perf.value("coll_msg_size_bytes", json()).is_number_unsigned() ||
      !perf.value("coll_exec_time_us", json()).is_number()) {
    *error = "not an Inspector collective record (header.id, header.rank, coll_perf.coll, coll_msg_size_bytes, "
             "coll_exec_time_us)";
    return false;
  }
  std::optional<int> collective = tuner::parseCollective(perf["coll"].get<std::string>());
  if (!collective) return true;  // AllGatherV and others the tuner never decides
  CommunicatorRecord& r = records[{id, header["rank"].get<int>()}];
  r.file = file;
  r.commId = id;
  r.rank = header["rank"].get<int>();
  r.nRanks = header.value("n_ranks", 0);
  r.nNodes = header.value("nnodes", 0);
  uint64_t bytes = perf["coll_msg_size_bytes"].get<uint64_t>();
  if (*collective == kAllGather || *collective == kReduceScatter) bytes *= static_cast<uint64_t>(std::max(r.nRanks, 1));
  double us = perf["coll_exec_time_us"].get<double>();
  if (!(us >= 0)) return true;
  r.timings[cellOf(*collective, tuner::sizeBucket(bytes))].record(static_cast<uint64_t>(us * 1000.0));
  return true;
}

}  // namespace

StatusOr<std::vector<CommunicatorRecord>> parseInspectorDump(const std::string& text, const std::string& file) {
  std::string error;
  std::vector<std::pair<size_t, std::string>> objects = topLevelObjects(text, &error);
  if (!error.empty()) return Status(StatusCode::kParseError, file + ": " + error);
  std::map<std::pair<uint64_t, int>, CommunicatorRecord> records;
  for (const auto& [line, object] : objects) {
    json o = json::parse(object, nullptr, /*allow_exceptions=*/false);
    if (o.is_discarded() || !o.is_object()) {
      return Status(StatusCode::kParseError, file + ": line " + std::to_string(line) + ": not valid JSON");
    }
    try {
      if (!addCollective(o, records, file, &error)) {
        return Status(StatusCode::kParseError, file + ": line " + std::to_string(line) + ": " + error);
      }
    } catch (const std::exception& e) {
      return Status(StatusCode::kParseError, file + ": line " + std::to_string(line) + ": " + e.what());
    }
  }
  if (objects.empty()) return Status(StatusCode::kParseError, file + ": no Inspector records");
  std::vector<CommunicatorRecord> out;
  for (auto& [key, record] : records) out.push_back(std::move(record));
  return out;
}

StatusOr<std::vector<CommunicatorRecord>> readInspectorDump(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, size_t{1} << 30);
  if (!text.isOk()) return text.status();
  return parseInspectorDump(*text, path);
}

}  // namespace nccl_roce::fleet

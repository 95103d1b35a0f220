#include "fleet/inspector_reader.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/file.h"
#include "fleet/json_fields.h"
#include "tuner/decision_counts.h"
#include "tuner/nccl_names.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::json;

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

// One collective's record into its communicator's; false with *error when it does not read.
bool addCollective(const json& o, std::map<std::pair<uint64_t, int>, CommunicatorRecord>& records,
                   const std::string& file, std::string* error) {
  const json& header = o.contains("header") ? o["header"] : json();
  const json& metadata = o.contains("metadata") ? o["metadata"] : json();
  std::string version;
  if (metadata.is_object()) stringField(metadata, "inspector_output_format_version", &version);
  if (version != kInspectorFormat) {
    *error = "Inspector output format '" + version + "', this version reads " + kInspectorFormat;
    return false;
  }
  if (!o.contains("coll_perf")) return true;  // point-to-point
  const json& perf = o["coll_perf"];
  uint64_t id = 0;
  std::string idText;
  int rank = -1, nRanks = 0, nNodes = 0;
  if (!header.is_object() || !stringField(header, "id", &idText, false) || !hexId(idText, &id) ||
      !intField(header, "rank", 0, INT32_MAX, &rank) || rank < 0 || !perf.is_object() ||
      !perf.value("coll", json()).is_string() || !perf.value("coll_msg_size_bytes", json()).is_number_unsigned() ||
      !perf.value("coll_exec_time_us", json()).is_number()) {
    *error = "not an Inspector collective record (header.id, header.rank, coll_perf.coll, coll_msg_size_bytes, "
             "coll_exec_time_us)";
    return false;
  }
  if (!intField(header, "n_ranks", 0, INT32_MAX, &nRanks) || !intField(header, "nnodes", 0, INT32_MAX, &nNodes)) {
    *error = "header.n_ranks or header.nnodes is not a whole number";
    return false;
  }
  std::optional<int> collective = tuner::parseCollective(perf["coll"].get<std::string>());
  if (!collective) return true;  // AllGatherV and others the tuner never decides
  double ns = perf["coll_exec_time_us"].get<double>() * 1000.0;
  if (!(ns >= 0) || ns >= 1e18) {  // negative, NaN, or centuries: not a duration (and past uint64_t's range)
    *error = "coll_exec_time_us is not a duration";
    return false;
  }
  CommunicatorRecord& r = records[{id, rank}];
  r.file = file;
  r.commId = id;
  r.rank = rank;
  r.nRanks = nRanks;
  r.nNodes = nNodes;
  uint64_t bytes = perf["coll_msg_size_bytes"].get<uint64_t>();
  if (tuner::sizedOverRanks(*collective)) bytes *= static_cast<uint64_t>(std::max(r.nRanks, 1));
  CellTimings& cell = r.timings[cellOf(*collective, tuner::sizeBucket(bytes))];
  ++cell.count;
  cell.binSum += static_cast<uint64_t>(profiler::LogHistogram::binOf(static_cast<uint64_t>(ns)));
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

#include "fleet/inspector_reader.h"

#include <algorithm>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <utility>

#include "common/strings.h"
#include "telemetry/json_fields.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::fleet {

namespace {

using telemetry::intField;
using telemetry::stringField;

using nlohmann::json;

// The dump's text as a stream nlohmann reads one object at a time from, without copying it, and that says where
// reading stopped (nlohmann reads through the buffer, one character past each object's closing brace).
class TextStream : private std::streambuf, public std::istream {
 public:
  explicit TextStream(const std::string& text) : std::istream(this) {
    char* begin = const_cast<char*>(text.data());  // only ever read
    setg(begin, begin, begin + text.size());
  }
  size_t position() const { return static_cast<size_t>(gptr() - eback()); }
  void moveTo(size_t position) {
    setg(eback(), eback() + position, egptr());
    clear();
  }
};

// Lines counted as reading moves forward through the text.
class LineCounter {
 public:
  explicit LineCounter(const std::string& text) : text_(text) {}
  size_t lineAt(size_t position) {
    position = std::min(position, text_.size());
    line_ += static_cast<size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(counted_),
                                            text_.begin() + static_cast<std::ptrdiff_t>(position), '\n'));
    counted_ = position;
    return line_;
  }

 private:
  const std::string& text_;
  size_t counted_ = 0, line_ = 1;
};

using Records = std::map<std::pair<uint64_t, int>, CommunicatorRecord>;

// False with *error unless the record says it is in the one Inspector format this version reads.
bool isReadableFormat(const json& o, std::string* error) {
  const json& metadata = o.contains("metadata") ? o["metadata"] : json();
  std::string version;
  if (metadata.is_object()) stringField(metadata, "inspector_output_format_version", &version);
  if (version != kInspectorFormat) {
    *error = "Inspector output format '" + version + "', this version reads " + kInspectorFormat;
    return false;
  }
  return true;
}

// What a collective record says that this reader keeps.
struct CollectiveFields {
  uint64_t commId = 0;
  int rank = -1, nRanks = 0, nNodes = 0;
  TimingClock clock = TimingClock::kGpu;
  double ns = 0;  // the collective's duration
};

// The record's header and coll_perf into *f; false with *error at the first field that does not read.
bool readCollectiveFields(const json& header, const json& perf, CollectiveFields* f, std::string* error) {
  std::optional<uint64_t> id;
  std::string idText, source = "kernel_gpu";
  if (!header.is_object() || !stringField(header, "id", &idText, false) || !(id = parseHexId(idText)) ||
      !intField(header, "rank", 0, INT32_MAX, &f->rank) || f->rank < 0 || !perf.is_object() ||
      !perf.value("coll", json()).is_string() || !perf.value("coll_msg_size_bytes", json()).is_number_unsigned() ||
      !perf.value("coll_exec_time_us", json()).is_number()) {
    *error =
        "not an Inspector collective record (header.id, header.rank, coll_perf.coll, coll_msg_size_bytes, "
        "coll_exec_time_us)";
    return false;
  }
  f->commId = *id;
  if (!intField(header, "n_ranks", 0, INT32_MAX, &f->nRanks) || !intField(header, "nnodes", 0, INT32_MAX, &f->nNodes)) {
    *error = "header.n_ranks or header.nnodes is not a whole number";
    return false;
  }
  std::optional<TimingClock> clock =
      stringField(perf, "coll_timing_source", &source) ? clockOfTimingSource(source) : std::nullopt;
  if (!clock) {
    *error = "coll_timing_source is not kernel_gpu, kernel_cpu or collective_cpu";
    return false;
  }
  f->clock = *clock;
  f->ns = perf["coll_exec_time_us"].get<double>() * 1000.0;
  if (!(f->ns >= 0) || f->ns >= 1e18) {  // negative, NaN, or centuries: not a duration (and past uint64_t's range)
    *error = "coll_exec_time_us is not a duration";
    return false;
  }
  return true;
}

// One collective's record into its communicator's; false with *error when it does not read.
bool addCollective(const json& o, Records& records, InspectorDump& dump, const std::string& file, std::string* error) {
  if (!isReadableFormat(o, error)) return false;
  if (!o.contains("coll_perf")) {
    ++dump.pointToPoint;
    return true;
  }
  const json& perf = o["coll_perf"];
  CollectiveFields f;
  if (!readCollectiveFields(o.contains("header") ? o["header"] : json(), perf, &f, error)) return false;
  std::optional<int> collective = telemetry::parseCollective(perf["coll"].get<std::string>());
  if (!collective) {
    ++dump.otherCollectives;
    return true;
  }
  CommunicatorRecord& r = records[{f.commId, f.rank}];
  r.file = file;
  r.commId = f.commId;
  r.rank = f.rank;
  r.nRanks = f.nRanks;
  r.nNodes = f.nNodes;
  if (f.ns <= telemetry::LogHistogram::kMinNs) {
    ++r.zeroDurations;
    return true;
  }
  uint64_t bytes = perf["coll_msg_size_bytes"].get<uint64_t>();
  if (telemetry::sizedOverRanks(*collective)) bytes *= static_cast<uint64_t>(std::max(r.nRanks, 1));
  CellTimings& cell = r.timings[f.clock][cellOf(*collective, telemetry::sizeBucket(bytes))];
  ++cell.count;
  cell.binSum += static_cast<uint64_t>(telemetry::LogHistogram::binOf(static_cast<uint64_t>(f.ns)));
  return true;
}

Status errorAt(const std::string& file, size_t line, const std::string& what) {
  return Status(StatusCode::kParseError, file + ": line " + std::to_string(line) + ": " + what);
}

}  // namespace

StatusOr<InspectorDump> parseInspectorDump(const std::string& text, const std::string& file) {
  InspectorDump dump;
  Records records;
  TextStream in(text);
  LineCounter lines(text);
  for (size_t next = text.find_first_not_of(" \t\r\n"); next != std::string::npos;
       next = text.find_first_not_of(" \t\r\n", in.position())) {
    size_t line = lines.lineAt(next);
    in.moveTo(next);
    json object;
    try {
      in >> object;
    } catch (const json::exception&) {
      if (in.position() >= text.size()) {  // the text ended inside the object
        dump.truncatedLast = "line " + std::to_string(line);
        break;
      }
      size_t at = lines.lineAt(in.position() - 1);  // the character it stopped at
      return errorAt(
          file, at,
          at == line ? "not valid JSON" : "not valid JSON (in the object from line " + std::to_string(line) + ")");
    }
    if (!object.is_object()) return errorAt(file, line, "not a JSON object");
    std::string error;
    try {
      if (!addCollective(object, records, dump, file, &error)) return errorAt(file, line, error);
    } catch (const std::exception& e) {  // a member of an unexpected type that value() could not convert
      return errorAt(file, line, e.what());
    }
  }
  for (auto& [key, record] : records) dump.records.push_back(std::move(record));
  return dump;
}

}  // namespace nccl_roce::fleet

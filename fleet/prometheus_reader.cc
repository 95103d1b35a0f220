#include "fleet/prometheus_reader.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "common/strings.h"
#include "fleet/json_fields.h"
#include "profiler/open_metrics.h"
#include "telemetry/cell_key.h"
#include "telemetry/nccl_names.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::json;

const char* kCount = "nccl_roce_ab_log_duration_count";
const char* kSum = "nccl_roce_ab_log_duration_sum";
const char* kDecisions = "nccl_roce_tuner_decisions_total";
const char* kOmitted = "nccl_roce_ab_omitted_cells";
const char* kZero = "nccl_roce_ab_zero_durations_total";

// What identifies one communicator's rank (profiler/open_metrics.cc writes them on every series of ours).
const std::vector<std::string>& communicatorLabels() {
  static const std::vector<std::string> names = {"experiment", "experiment_hash", "arm",   "policy", "policy_hash",
                                                 "comm_id",    "rank",            "nranks", "n_nodes"};
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A PromQL string literal.
std::string promString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

// Each series of `metric` at its last sample in the window, duplicates merged, keeping ours and `extra` labels.
std::string lastOf(const char* metric, const std::vector<std::string>& extra, const PrometheusSelection& s) {
  std::vector<std::string> by = communicatorLabels();
  by.insert(by.end(), extra.begin(), extra.end());
  std::string selector = std::string(metric) + (s.experiment.empty() ? "" : "{experiment=" + promString(s.experiment) + "}");
  return "max by (" + joined(by) + ") (last_over_time(" + selector + "[" + s.window + "]))";
}

struct Series {
  std::map<std::string, std::string> labels;
  uint64_t value = 0;

  std::string label(const std::string& name) const {
    auto it = labels.find(name);
    return it == labels.end() ? std::string() : it->second;
  }
  std::string describe(const std::string& metric) const {
    std::string out = metric + "{";
    for (const auto& [name, text] : labels) out += (out.back() == '{' ? "" : ",") + name + "=\"" + text + "\"";
    return out + "}";
  }
};

Status invalid(const std::string& what) { return Status(StatusCode::kParseError, "Prometheus: " + what); }

// A sample value that is one of our counts: a whole number within float64's exact integers.
std::optional<uint64_t> exactCount(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 9007199254740992.0 ||
      v != std::floor(v)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

// The series of one answer of the query API: {"status": "success", "data": {"resultType": "vector", "result":
// [{"metric": {labels}, "value": [time, "value"]}...]}}.
StatusOr<std::vector<Series>> seriesOf(const std::string& body, const char* metric) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid("the answer is not the JSON of the query API");
  std::string status;
  if (!stringField(doc, "status", &status, false) || status != "success") {
    std::string error;
    stringField(doc, "error", &error);
    return invalid("the query for " + std::string(metric) + " failed: " + (error.empty() ? status : error));
  }
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object() || data->value("resultType", json()) != "vector" ||
      !data->contains("result") || !(*data)["result"].is_array()) {
    return invalid("the answer for " + std::string(metric) + " is not an instant vector");
  }
  std::vector<Series> out;
  for (const json& r : (*data)["result"]) {
    Series s;
    auto labels = r.is_object() ? r.find("metric") : r.end();
    auto value = r.is_object() ? r.find("value") : r.end();
    if (labels == r.end() || !labels->is_object() || value == r.end() || !value->is_array() || value->size() != 2 ||
        !(*value)[1].is_string()) {
      return invalid("a result for " + std::string(metric) + " is not {\"metric\": {...}, \"value\": [time, \"value\"]}");
    }
    for (const auto& [name, text] : labels->items()) {
      if (!text.is_string()) return invalid("label " + name + " of " + metric + " is not a string");
      s.labels[name] = text.get<std::string>();
    }
    std::optional<uint64_t> count = exactCount((*value)[1].get<std::string>());
    if (!count) return invalid(s.describe(metric) + " is " + (*value)[1].get<std::string>() + ", not a count");
    s.value = *count;
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<int> intLabel(const Series& s, const char* name, int hi) {
  std::optional<uint64_t> v = parseUnsigned(s.label(name));
  if (!v || *v > static_cast<uint64_t>(hi)) return std::nullopt;
  return static_cast<int>(*v);
}

// The record of a series' communicator rank, made on first sight.
StatusOr<CommunicatorRecord*> recordOf(const Series& s, const char* metric, std::map<std::string, CommunicatorRecord>& records) {
  std::string key;
  for (const std::string& name : communicatorLabels()) key += s.label(name) + '\0';
  auto [it, added] = records.try_emplace(key);
  CommunicatorRecord& r = it->second;
  if (!added) return &r;
  std::optional<int> rank = intLabel(s, "rank", INT32_MAX), nRanks = intLabel(s, "nranks", INT32_MAX),
                     nNodes = intLabel(s, "n_nodes", INT32_MAX);
  if (!hexId(s.label("comm_id"), &r.commId) || !rank || !nRanks || !nNodes) {
    return invalid(s.describe(metric) + ": comm_id, rank, nranks or n_nodes is not what the plugin writes");
  }
  r.file = "Prometheus series of comm_id " + s.label("comm_id") + " rank " + s.label("rank");
  r.rank = *rank;
  r.nRanks = *nRanks;
  r.nNodes = *nNodes;
  r.fromStatistics = true;
  r.experiment = s.label("experiment");
  r.experimentHash = s.label("experiment_hash");
  r.arm = s.label("arm");
  r.policy = s.label("policy");
  r.policyHash = s.label("policy_hash");
  return &r;
}

std::optional<uint64_t> cellOfSeries(const Series& s) {
  static const std::map<std::string, int> buckets = [] {
    std::map<std::string, int> b;
    for (int i = 0; i < 64; ++i) b[profiler::messageSizeLabel(i)] = i;
    return b;
  }();
  std::optional<int> collective = telemetry::parseCollective(s.label("collective"));
  auto bucket = buckets.find(s.label("message_size"));
  if (!collective || bucket == buckets.end()) return std::nullopt;
  return cellOf(*collective, bucket->second);
}

// Counts and bin sums are pairs of series with the same labels (one textfile line each, scraped together); the
// timing source says the clock, as in statistics files.
Status addTimings(const std::vector<Series>& counts, const std::vector<Series>& sums,
                  std::map<std::string, CommunicatorRecord>& records) {
  std::map<std::map<std::string, std::string>, uint64_t> sumOf;
  for (const Series& s : sums) sumOf[s.labels] = s.value;
  if (sumOf.size() != counts.size()) {
    return invalid(std::to_string(counts.size()) + " series of " + kCount + " but " + std::to_string(sums.size()) +
                   " of " + kSum + ": each count needs its sum (is the window cut through a scrape?)");
  }
  for (const Series& s : counts) {
    auto sum = sumOf.find(s.labels);
    if (sum == sumOf.end()) return invalid(s.describe(kCount) + " has no " + kSum + " with the same labels");
    std::optional<uint64_t> cell = cellOfSeries(s);
    std::optional<TimingClock> clock = clockOfTimingSource(s.label("timing_source"));
    if (!cell) return invalid(s.describe(kCount) + ": collective or message_size is not what the plugin writes");
    if (!clock) return invalid(s.describe(kCount) + ": timing_source is not what the plugin writes");
    StatusOr<CommunicatorRecord*> r = recordOf(s, kCount, records);
    if (!r.isOk()) return r.status();
    if (s.value > 0) (*r)->timings[*clock][*cell].add(CellTimings{s.value, sum->second});
  }
  return Status::ok();
}

Status addDecisions(const std::vector<Series>& decisions, std::map<std::string, CommunicatorRecord>& records) {
  for (const Series& s : decisions) {
    std::optional<uint64_t> cell = cellOfSeries(s);
    TunerDecision d;
    std::optional<int> algorithm = s.label("algorithm").empty() ? -1 : telemetry::parseAlgorithm(s.label("algorithm"));
    std::optional<int> protocol = s.label("protocol").empty() ? -1 : telemetry::parseProtocol(s.label("protocol"));
    std::optional<int> channels = intLabel(s, "channels", 64);
    std::optional<uint32_t> chunkSize =
        s.label("chunk_size").empty() ? uint32_t{0} : telemetry::chunkSizeFromLabel(s.label("chunk_size"));
    std::optional<DecisionSource> source = decisionSourceNamed(s.label("source"));
    if (!cell || !algorithm || !protocol || !channels || !chunkSize || !source) {
      return invalid(s.describe(kDecisions) + ": a label is not what the plugin writes");
    }
    d.algorithm = *algorithm;
    d.protocol = *protocol;
    d.channels = *channels;
    d.chunkSize = *chunkSize;
    d.source = *source;
    d.rule = s.label("rule");
    // Decisions of a cell the profiler did not time give `ab fit` nothing: the textfile writes none.
    StatusOr<CommunicatorRecord*> r = recordOf(s, kDecisions, records);
    if (!r.isOk()) return r.status();
    (*r)->decisions[*cell][d] += s.value;
  }
  return Status::ok();
}

}  // namespace

bool isPromDuration(const std::string& text) {
  static const std::regex duration("^([0-9]+(ms|s|m|h|d|w|y))+$");
  return std::regex_match(text, duration);
}

std::vector<std::string> fleetQueries(const PrometheusSelection& s) {
  return {lastOf(kCount, {"collective", "message_size", "timing_source"}, s),
          lastOf(kSum, {"collective", "message_size", "timing_source"}, s),
          lastOf(kDecisions, {"collective", "message_size", "algorithm", "protocol", "channels", "chunk_size", "source", "rule"}, s),
          lastOf(kOmitted, {}, s),
          lastOf(kZero, {}, s)};
}

StatusOr<PrometheusRecords> parseFleetAnswers(const std::vector<std::string>& answers) {
  if (answers.size() != 5) return invalid("five answers expected");
  StatusOr<std::vector<Series>> counts = seriesOf(answers[0], kCount), sums = seriesOf(answers[1], kSum),
                                 decisions = seriesOf(answers[2], kDecisions), omitted = seriesOf(answers[3], kOmitted),
                                 zeros = seriesOf(answers[4], kZero);
  for (const auto* answer : {&counts, &sums, &decisions, &omitted, &zeros}) {
    if (!answer->isOk()) return answer->status();
  }
  std::map<std::string, CommunicatorRecord> records;
  Status timed = addTimings(*counts, *sums, records);
  if (timed.isOk()) timed = addDecisions(*decisions, records);
  if (!timed.isOk()) return timed;
  for (const Series& s : *zeros) {
    StatusOr<CommunicatorRecord*> r = recordOf(s, kZero, records);
    if (!r.isOk()) return r.status();
    (*r)->zeroDurations += s.value;
  }
  PrometheusRecords out;
  uint64_t omittedCells = 0;
  for (const Series& s : *omitted) omittedCells += s.value;
  if (!omitted->empty()) {
    out.notes.push_back(std::to_string(omitted->size()) + " communicator rank(s) left " + std::to_string(omittedCells) +
                        " timed cell(s) out of their textfile (its series budget): only their statistics files "
                        "hold those");
  }
  for (auto& [key, record] : records) out.records.push_back(std::move(record));
  return out;
}

StatusOr<Fleet> readPrometheusFleet(const PrometheusQuery& query, const PrometheusSelection& selection) {
  if (!isPromDuration(selection.window)) {
    return Status(StatusCode::kInvalidArgument,
                  "--window '" + selection.window + "' is not a Prometheus duration such as 30m, 6h, 2d or 1h30m");
  }
  std::vector<std::string> answers;
  for (const std::string& promql : fleetQueries(selection)) {
    StatusOr<std::string> answer = query(promql);
    if (!answer.isOk()) return answer.status();
    answers.push_back(std::move(*answer));
  }
  StatusOr<PrometheusRecords> read = parseFleetAnswers(answers);
  if (!read.isOk()) return read.status();
  if (read->records.empty()) {
    return Status(StatusCode::kNotFound,
                  std::string("no ") + kCount + " series" +
                      (selection.experiment.empty() ? "" : " of experiment '" + selection.experiment + "'") +
                      " in the last " + selection.window +
                      ": is node-exporter's textfile collector reading NCCL_ROCE_METRICS, and does --window reach "
                      "back to the pods' last scrape?");
  }
  std::set<std::string> experiments;
  for (const CommunicatorRecord& r : read->records) {
    if (!r.experiment.empty()) experiments.insert(r.experiment);  // as the files: communicators of no experiment mix
  }
  if (experiments.size() > 1) {
    std::string names;
    for (const std::string& e : experiments) names += (names.empty() ? "" : ", ") + e;
    return Status(StatusCode::kInvalidArgument, "series of several experiments in the last " + selection.window +
                                                    " (" + names + "): name one with --experiment");
  }
  StatusOr<Fleet> fleet = assembleFleet(read->records, {});
  if (!fleet.isOk()) return fleet;
  fleet->notes.insert(fleet->notes.begin(), read->notes.begin(), read->notes.end());
  return fleet;
}

}  // namespace nccl_roce::fleet

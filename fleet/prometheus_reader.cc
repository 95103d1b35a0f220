#include "fleet/prometheus_reader.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "common/strings.h"
#include "fleet/telemetry_reader.h"
#include "telemetry/json_fields.h"
#include "telemetry/open_metrics.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::json;

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
  std::vector<std::string> by = telemetry::abCommunicatorLabels();
  by.insert(by.end(), extra.begin(), extra.end());
  // --experiment takes a name, or an experiment_hash ("sha256:...") to pick one version of a name.
  const char* label = startsWith(s.experiment, "sha256:") ? "experiment_hash" : "experiment";
  std::string selector = std::string(metric) +
                         (s.experiment.empty() ? "" : "{" + std::string(label) + "=" + promString(s.experiment) + "}");
  return "max by (" + join(by, ", ") + ") (last_over_time(" + selector + "[" + s.window + "]))";
}

Status invalid(const std::string& what) {
  return Status(StatusCode::kParseError, "Prometheus: " + what);
}

// The samples of one answer of the query API: {"status": "success", "data": {"resultType": "vector", "result":
// [{"metric": {labels}, "value": [time, "value"]}...]}}, named after the series asked for (aggregation drops
// __name__).
StatusOr<std::vector<telemetry::MetricSample>> samplesOf(const std::string& body, const char* metric) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid("the answer is not the JSON of the query API");
  std::string status;
  if (!telemetry::stringField(doc, "status", &status, false) || status != "success") {
    std::string error;
    telemetry::stringField(doc, "error", &error);
    return invalid("the query for " + std::string(metric) + " failed: " + (error.empty() ? status : error));
  }
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object() || data->value("resultType", json()) != "vector" ||
      !data->contains("result") || !(*data)["result"].is_array()) {
    return invalid("the answer for " + std::string(metric) + " is not an instant vector");
  }
  std::vector<telemetry::MetricSample> out;
  for (const json& r : (*data)["result"]) {
    telemetry::MetricSample s;
    s.name = metric;
    auto labels = r.is_object() ? r.find("metric") : r.end();
    auto value = r.is_object() ? r.find("value") : r.end();
    if (labels == r.end() || !labels->is_object() || value == r.end() || !value->is_array() || value->size() != 2 ||
        !(*value)[1].is_string()) {
      return invalid("a result for " + std::string(metric) +
                     " is not {\"metric\": {...}, \"value\": [time, \"value\"]}");
    }
    for (const auto& [name, text] : labels->items()) {
      if (!text.is_string()) return invalid("label " + name + " of " + metric + " is not a string");
      s.labels[name] = text.get<std::string>();
    }
    s.value = (*value)[1].get<std::string>();
    out.push_back(std::move(s));
  }
  return out;
}

// A communicator rank's series as the record the statistics reader makes of its entry.
CommunicatorRecord recordOf(const telemetry::RankSeries& r) {
  CommunicatorRecord out;
  out.file = "Prometheus series of comm_id " + formatHexId(r.commId) + " rank " + std::to_string(r.rank);
  out.commId = r.commId;
  if (r.rank >= 0) out.rank = r.rank;
  out.nRanks = r.nRanks;
  out.nNodes = r.nNodes;
  out.fromStatistics = true;
  out.experiment = r.identity.experiment;
  out.experimentHash = r.identity.experimentHash;
  out.arm = r.identity.arm;
  out.policy = r.identity.policy;
  out.policyHash = r.identity.policyHash;
  out.design = r.identity.design;
  if (r.switchback) out.switchback = switchbackRecordOf(*r.switchback);
  for (const auto& [where, cell] : r.timings) {
    auto [collective, bucket, source] = where;
    if (cell.count > 0)
      out.timings[clockOf(source)][cellOf(collective, bucket)].add(CellTimings{cell.count, cell.binSum});
  }
  for (const telemetry::DecisionCount& d : r.decisions) {
    TunerDecision decision{d.key.choice, d.source, d.rule, d.arm};
    out.decisions[cellOf(d.key.collective, d.key.bucket)][decision] += d.count;
  }
  out.zeroDurations = r.zeroDurations;
  return out;
}

// The queries' metrics, in fleetQueries' order.
const char* const kQueried[] = {
    telemetry::kAbLogDurationCount,      telemetry::kAbLogDurationSum,        telemetry::kTunerDecisions,
    telemetry::kAbOmittedCells,          telemetry::kAbZeroDurations,         telemetry::kSwitchbackArm,
    telemetry::kSwitchbackUnattributed,  telemetry::kSwitchbackCaptured,      telemetry::kSwitchbackWashedOut,
    telemetry::kSwitchbackPairedWindows, telemetry::kSwitchbackPairedDiffSum, telemetry::kSwitchbackPairedDiffSquares};

}  // namespace

bool isPromDuration(const std::string& text) {
  static const std::regex duration("^([0-9]+(ms|s|m|h|d|w|y))+$");
  return std::regex_match(text, duration);
}

std::vector<std::string> fleetQueries(const PrometheusSelection& s) {
  const std::vector<std::string> cell = {"collective", "message_size"};
  return {lastOf(kQueried[0], telemetry::abTimingLabels(), s),
          lastOf(kQueried[1], telemetry::abTimingLabels(), s),
          lastOf(kQueried[2], telemetry::abDecisionLabels(), s),
          lastOf(kQueried[3], {}, s),
          lastOf(kQueried[4], {}, s),
          lastOf(kQueried[5], {"index", "block", "washout", "window", "turns_per_round", "captures_tracked"}, s),
          lastOf(kQueried[6], {}, s),
          lastOf(kQueried[7], {}, s),
          lastOf(kQueried[8], cell, s),
          lastOf(kQueried[9], cell, s),
          lastOf(kQueried[10], cell, s),
          lastOf(kQueried[11], cell, s)};
}

StatusOr<PrometheusRecords> parseFleetAnswers(const std::vector<std::string>& answers) {
  if (answers.size() != std::size(kQueried)) return invalid(std::to_string(std::size(kQueried)) + " answers expected");
  std::vector<telemetry::MetricSample> samples;
  for (size_t i = 0; i < answers.size(); ++i) {
    StatusOr<std::vector<telemetry::MetricSample>> answer = samplesOf(answers[i], kQueried[i]);
    if (!answer.isOk()) return answer.status();
    samples.insert(samples.end(), answer->begin(), answer->end());
  }
  StatusOr<std::vector<telemetry::RankSeries>> ranks = telemetry::readAbSeries(samples);
  if (!ranks.isOk()) return invalid(ranks.status().message());
  PrometheusRecords out;
  uint64_t omittedCells = 0, captured = 0;
  int omittedRanks = 0, capturingRanks = 0;
  for (const telemetry::RankSeries& r : *ranks) {
    omittedCells += r.omittedCells;
    omittedRanks += r.omittedCells > 0;
    captured += r.switchback ? r.switchback->captured : 0;
    capturingRanks += r.switchback && r.switchback->captured > 0;
    // A rank whose only series say what it left out holds nothing to read.
    if (!r.timings.empty() || !r.decisions.empty() || r.zeroDurations > 0) out.records.push_back(recordOf(r));
  }
  if (omittedRanks > 0) {
    out.notes.push_back(std::to_string(omittedRanks) + " communicator rank(s) left " + std::to_string(omittedCells) +
                        " timed cell(s) out of their textfile (its series budget): only their statistics files "
                        "hold those");
  }
  if (capturingRanks > 0) {
    out.notes.push_back(std::to_string(capturingRanks) + " switchback communicator rank(s) captured " +
                        std::to_string(captured) +
                        " collective(s) into CUDA graphs: the capture rounds that judge their replays are in the "
                        "statistics files only, so this report judges eager collectives; run `nccl-roce ab` on the "
                        "pods' files for the replays");
  }
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
                  std::string("no ") + telemetry::kAbLogDurationCount + " series" +
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
    return Status(StatusCode::kInvalidArgument, "series of several experiments in the last " + selection.window + " (" +
                                                    names + "): name one with --experiment");
  }
  StatusOr<Fleet> fleet = assembleFleet(read->records, {});
  if (!fleet.isOk()) return fleet;
  fleet->notes.insert(fleet->notes.begin(), read->notes.begin(), read->notes.end());
  return fleet;
}

}  // namespace nccl_roce::fleet

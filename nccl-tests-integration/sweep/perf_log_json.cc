#include "nccl-tests-integration/sweep/perf_log_json.h"

#include <charconv>
#include <type_traits>

namespace nccl_roce::sweep {

namespace {

using nlohmann::json;

template <typename T>
json orNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json stringOrNull(const std::string& value) {
  return value.empty() ? json(nullptr) : json(value);
}

json halfToJson(const std::optional<PerfHalf>& half) {
  if (!half) return nullptr;
  json out = {{"time_us", orNull(half->timeUs)},
              {"algbw_gbs", orNull(half->algBwGBs)},
              {"busbw_gbs", orNull(half->busBwGBs)},
              {"wrong", orNull(half->wrong)}};
  if (half->maxError) out["max_error"] = *half->maxError;
  if (half->iterMinUs || half->iterMaxUs || half->iterP99Us || half->iterCvPct) {
    out["per_iteration"] = {{"min_us", orNull(half->iterMinUs)},
                            {"max_us", orNull(half->iterMaxUs)},
                            {"p99_us", orNull(half->iterP99Us)},
                            {"cv_pct", orNull(half->iterCvPct)}};
  }
  return out;
}

json rowToJson(const PerfRow& row) {
  return {{"line", row.line},
          {"size", row.size},
          {"count", row.count},
          {"type", row.type},
          {"redop", stringOrNull(row.redop)},
          {"root", orNull(row.root)},
          {"out_of_place", halfToJson(row.outOfPlace)},
          {"in_place", halfToJson(row.inPlace)},
          {"timestamp", stringOrNull(row.timestamp)}};
}

json parametersToJson(const RunParameters& p) {
  return {{"threads", orNull(p.threads)},
          {"gpus_per_thread", orNull(p.gpusPerThread)},
          {"min_bytes", orNull(p.minBytes)},
          {"max_bytes", orNull(p.maxBytes)},
          {"step_factor", orNull(p.stepFactor)},
          {"step_bytes", orNull(p.stepBytes)},
          {"warmup_iters", orNull(p.warmupIters)},
          {"iters", orNull(p.iters)},
          {"agg_iters", orNull(p.aggIters)},
          {"validation", orNull(p.validation)},
          {"graph", orNull(p.graph)}};
}

json runToJson(const PerfRun& run) {
  json devices = json::array();
  for (const DeviceLine& d : run.devices) {
    devices.push_back({{"rank", d.rank},
                       {"group", orNull(d.group)},
                       {"pid", orNull(d.pid)},
                       {"host", d.host},
                       {"device", d.device},
                       {"bus_id", d.busId},
                       {"name", d.name}});
  }
  json rows = json::array();
  for (const PerfRow& row : run.rows) rows.push_back(rowToJson(row));
  json footer = nullptr;
  if (run.footer) {
    footer = {{"out_of_bounds", orNull(run.footer->outOfBounds)},
              {"out_of_bounds_ok", orNull(run.footer->outOfBoundsOk)},
              {"avg_busbw_gbs", orNull(run.footer->avgBusBwGBs)}};
  }
  return {{"first_line", run.firstLine},
          {"last_line", run.lastLine},
          {"collective", stringOrNull(run.collective)},
          {"collective_source", collectiveSourceName(run.collectiveSource)},
          {"nccl_tests_version", stringOrNull(run.testsVersion)},
          {"nccl_version", stringOrNull(run.ncclVersion)},
          {"nccl_version_detail", stringOrNull(run.ncclVersionDetail)},
          {"ranks", orNull(run.ranks())},
          {"nodes", orNull(run.nodes())},
          {"parameters", parametersToJson(run.parameters)},
          {"reduced_max_bytes", orNull(run.reducedMaxBytes)},
          {"devices", devices},
          {"environment", run.environment},
          {"command", stringOrNull(run.command)},
          {"columns", run.columns},
          {"cpu_time", run.cpuTime},
          {"rows", rows},
          {"footer", footer},
          {"complete", run.complete()},
          {"concluded", run.concluded},
          {"rejections", run.rejections},
          {"warnings", run.warnings}};
}

json notesToJson(const std::vector<LineNote>& notes) {
  json out = json::array();
  for (const LineNote& n : notes) out.push_back({{"line", n.line}, {"text", n.text}});
  return out;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

template <typename T>
std::string csvNumber(const std::optional<T>& value) {
  if (!value) return "";
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, *value);  // shortest round-trip form
    return std::string(buffer, result.ptr);
  } else {
    return std::to_string(*value);
  }
}

std::string csvHalf(const std::optional<PerfHalf>& half) {
  if (!half) return ",,,";
  return csvNumber(half->timeUs) + "," + csvNumber(half->algBwGBs) + "," + csvNumber(half->busBwGBs) + "," +
         csvNumber(half->wrong);
}

}  // namespace

json perfLogToJson(const PerfLog& log) {
  json runs = json::array();
  for (const PerfRun& run : log.runs) runs.push_back(runToJson(run));
  return {{"source", log.source},
          {"runs", runs},
          {"lines",
           {{"total", log.lines.total},
            {"rows", log.lines.rows},
            {"header", log.lines.header},
            {"nccl_log", log.lines.ncclLog},
            {"blank", log.lines.blank},
            {"unknown", log.lines.unknown},
            {"malformed", log.lines.malformed}}},
          {"unknown_examples", notesToJson(log.unknownExamples)},
          {"problems", notesToJson(log.problems)}};
}

json perfLogsToJson(const std::vector<PerfLog>& logs) {
  json files = json::array();
  for (const PerfLog& log : logs) files.push_back(perfLogToJson(log));
  return {{"schema", kParseSchema}, {"files", files}};
}

std::string perfLogsCsvHeader() {
  return "source,run,line,collective,ranks,size,count,type,redop,root,"
         "oop_time_us,oop_algbw_gbs,oop_busbw_gbs,oop_wrong,ip_time_us,ip_algbw_gbs,ip_busbw_gbs,ip_wrong\n";
}

std::string perfLogToCsv(const PerfLog& log) {
  std::string out;
  for (size_t r = 0; r < log.runs.size(); ++r) {
    const PerfRun& run = log.runs[r];
    std::string prefix = csvField(log.source) + "," + std::to_string(r) + ",";
    std::string ranks = csvNumber(run.ranks());
    for (const PerfRow& row : run.rows) {
      out += prefix + std::to_string(row.line) + "," + csvField(run.collective) + "," + ranks + "," +
             std::to_string(row.size) + "," + std::to_string(row.count) + "," + csvField(row.type) + "," +
             csvField(row.redop) + "," + csvNumber(row.root) + "," + csvHalf(row.outOfPlace) + "," +
             csvHalf(row.inPlace) + "\n";
    }
  }
  return out;
}

std::string dumpJson(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace nccl_roce::sweep

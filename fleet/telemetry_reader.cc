#include "fleet/telemetry_reader.h"

#include <time.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/file.h"
#include "common/strings.h"
#include "fleet/json_fields.h"
#include "telemetry/cell_key.h"

namespace nccl_roce::fleet {

namespace {

using nlohmann::json;

// Counts past 2^53 are no collective count (and would lose their last digits as Prometheus' float64s).
constexpr uint64_t kMaxExactCount = uint64_t{1} << 53;

Status invalid(const std::string& file, const std::string& what) {
  return Status(StatusCode::kParseError, file + ": " + what);
}

// One timed key: its clock, its cell, and its count and bin sum from the bins, which must add up to the count.
// Bin 0 holds durations at or below the histogram's 0.1 us floor, which no collective takes: the clock could not
// resolve them, so they are dropped and counted.
Status readKey(const json& key, const std::string& where, CommunicatorRecord& record) {
  if (!key.is_object()) return invalid(where, "not an object");
  telemetry::CellKey cell;
  if (Status read = telemetry::readCellKey(key, &cell); !read.isOk()) return invalid(where, read.message());
  auto count = key.find("count");
  auto bins = key.find("bins");
  if (count == key.end() || !count->is_number_unsigned()) return invalid(where, "no count");
  if (bins == key.end() || !bins->is_array()) return invalid(where, "no bins");
  CellTimings timings;
  uint64_t total = 0;
  for (const json& bin : *bins) {
    if (!bin.is_array() || bin.size() != 2 || !bin[0].is_number_unsigned() || !bin[1].is_number_unsigned() ||
        bin[0].get<uint64_t>() >= static_cast<uint64_t>(telemetry::LogHistogram::kBins) ||
        bin[1].get<uint64_t>() > kMaxExactCount) {
      return invalid(where,
                     "a bin is not [index < " + std::to_string(telemetry::LogHistogram::kBins) + ", count below 2^53]");
    }
    total += bin[1].get<uint64_t>();
    if (bin[0].get<uint64_t>() == 0) {
      record.zeroDurations += bin[1].get<uint64_t>();
    } else {
      timings.count += bin[1].get<uint64_t>();
      timings.binSum += bin[0].get<uint64_t>() * bin[1].get<uint64_t>();
    }
  }
  if (total != count->get<uint64_t>()) {
    return invalid(where, "bins hold " + std::to_string(total) + " collectives, count says " +
                              std::to_string(count->get<uint64_t>()));
  }
  if (timings.count == 0) return Status::ok();
  // kernel_host: the host clock (NCCL 2.26 has no GPU stamps); an entry that does not say is a GPU time.
  std::optional<TimingClock> clock = clockOfTimingSource(telemetry::timingSourceName(cell.source));
  record.timings[clock.value_or(TimingClock::kGpu)][cellOf(cell.collective, cell.bucket)].add(timings);
  return Status::ok();
}

// One line of "decisions": its cell, what ran, who chose it and how many calls.
Status readDecision(const json& d, const std::string& where, CommunicatorRecord& record) {
  if (!d.is_object()) return invalid(where, "not an object");
  telemetry::CellKey cell;
  if (Status read = telemetry::readCellKey(d, &cell); !read.isOk()) return invalid(where, read.message());
  TunerDecision decision{cell.algorithm, cell.protocol, cell.channels, DecisionSource::kNccl, "", cell.chunkSize};
  std::string source;
  std::optional<DecisionSource> from = stringField(d, "source", &source, false) ? decisionSourceNamed(source) : std::nullopt;
  if (!from) return invalid(where, "source is not \"rule\", \"nccl\" or \"unavailable\"");
  decision.source = *from;
  if (!stringField(d, "rule", &decision.rule)) return invalid(where, "rule is neither null nor a string");
  auto count = d.find("count");
  if (count == d.end() || !count->is_number_unsigned()) return invalid(where, "no count");
  record.decisions[cellOf(cell.collective, cell.bucket)][decision] += count->get<uint64_t>();
  return Status::ok();
}

// "decisions" is written by the tuner; an entry only the profiler filled has none.
Status readDecisions(const json& comm, const std::string& where, CommunicatorRecord& record) {
  auto decisions = comm.find("decisions");
  if (decisions == comm.end()) return Status::ok();
  if (!decisions->is_array()) return invalid(where, "decisions is not a list");
  for (size_t i = 0; i < decisions->size(); ++i) {
    Status status = readDecision((*decisions)[i], where + " decisions[" + std::to_string(i) + "]", record);
    if (!status.isOk()) return status;
  }
  return Status::ok();
}

Status readTiming(const json& timing, const std::string& where, CommunicatorRecord& record) {
  if (!timing.is_object()) return invalid(where, "timing is not an object");
  auto histogram = timing.find("histogram");
  int bins = 0;
  if (histogram == timing.end() || !histogram->is_object() || histogram->value("scheme", "") != "log" ||
      !intField(*histogram, "bins", 0, INT32_MAX, &bins) || bins != telemetry::LogHistogram::kBins ||
      histogram->value("relative_error", 0.0) != telemetry::LogHistogram::kRelativeError) {
    return invalid(where, "timing.histogram is not the 1% log scheme of 1024 bins this version reads");
  }
  auto keys = timing.find("collectives");
  if (keys == timing.end() || !keys->is_array()) return invalid(where, "timing.collectives is not a list");
  for (size_t i = 0; i < keys->size(); ++i) {
    Status status = readKey((*keys)[i], where + " timing.collectives[" + std::to_string(i) + "]", record);
    if (!status.isOk()) return status;
  }
  return Status::ok();
}

// 2026-03-01T12:34:56.789Z, as the plugin writes "updated": milliseconds since the epoch.
std::optional<int64_t> utcMilliseconds(const std::string& text) {
  int year, month, day, hour, minute, second, ms;
  char zone = 0;
  if (text.size() != 24 || std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &year, &month, &day, &hour,
                                       &minute, &second, &ms, &zone) != 8 || zone != 'Z' ||
      month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  struct tm parts {};
  parts.tm_year = year - 1900;
  parts.tm_mon = month - 1;
  parts.tm_mday = day;
  parts.tm_hour = hour;
  parts.tm_min = minute;
  parts.tm_sec = second;
  return static_cast<int64_t>(::timegm(&parts)) * 1000 + ms;
}

// What schema /3 adds to an entry: its number in its process, live or final, and when it was last updated.
Status readEntryState(const json& comm, const std::string& where, const std::string& process,
                      CommunicatorRecord& r) {
  int64_t number = -1;
  if (!intField(comm, "entry", 1, INT64_MAX, &number) || number < 1) return invalid(where, "entry is not a number from 1");
  std::string state, updated;
  if (!stringField(comm, "state", &state, false) || (state != "live" && state != "final")) {
    return invalid(where, "state is neither \"live\" nor \"final\"");
  }
  std::optional<int64_t> ms = stringField(comm, "updated", &updated, false) ? utcMilliseconds(updated) : std::nullopt;
  if (!ms) return invalid(where, "updated is not a UTC time such as 2026-03-01T12:34:56.789Z");
  r.entryId = process + "/" + std::to_string(number);
  r.live = state == "live";
  r.updatedMs = *ms;
  return Status::ok();
}

// `process`: "host/pid" from the file's header in schema /3, "" in /2 (whose entries are all final).
StatusOr<CommunicatorRecord> readCommunicator(const json& comm, const std::string& where, const std::string& file,
                                              const std::string& process) {
  CommunicatorRecord r;
  r.file = file;
  r.fromStatistics = true;
  std::string id;
  if (!comm.is_object() || !stringField(comm, "comm_id", &id, false) || !hexId(id, &r.commId)) {
    return invalid(where, "comm_id is not a hex id such as 0x1f2e3d4c5b6a7980");
  }
  if (!process.empty()) {
    Status state = readEntryState(comm, where, process, r);
    if (!state.isOk()) return state;
  }
  for (auto [name, out] : {std::pair{"experiment", &r.experiment}, {"experiment_hash", &r.experimentHash},
                           {"arm", &r.arm}, {"policy", &r.policy}, {"policy_hash", &r.policyHash}}) {
    if (!stringField(comm, name, out)) return invalid(where, std::string(name) + " is not a string");
  }
  // NCCL's communicators hold at most a few hundred thousand ranks; anything past int's range is not a count.
  if (!intField(comm, "n_ranks", 0, INT32_MAX, &r.nRanks)) return invalid(where, "n_ranks is not a whole number");
  if (!intField(comm, "n_nodes", 0, INT32_MAX, &r.nNodes)) return invalid(where, "n_nodes is not a whole number");
  int rank = -1;
  if (!intField(comm, "rank", 0, INT32_MAX, &rank)) return invalid(where, "rank is not a whole number");
  if (rank >= 0) r.rank = rank;
  if (comm.contains("timing")) {
    Status status = readTiming(comm["timing"], where, r);
    if (!status.isOk()) return status;
  }
  Status decisions = readDecisions(comm, where, r);
  if (!decisions.isOk()) return decisions;
  return r;
}

}  // namespace

StatusOr<std::vector<CommunicatorRecord>> parseTelemetryFile(const std::string& text, const std::string& file) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return invalid(file, "not valid JSON (truncated, or not a statistics file)");
  std::string schema;
  if (!doc.is_object() || !stringField(doc, "schema", &schema) ||
      (schema != kTelemetrySchema && schema != kTelemetrySchemaV2)) {
    return invalid(file, std::string("not a statistics file of schema ") + kTelemetrySchema + " or " +
                             kTelemetrySchemaV2);
  }
  std::string process;  // what names an entry's process in schema /3
  if (schema == kTelemetrySchema) {
    std::string host;
    int64_t pid = -1;
    if (!stringField(doc, "host", &host) || !intField(doc, "pid", 0, INT64_MAX, &pid) || pid < 0) {
      return invalid(file, "the header has no host and pid, which name its entries");
    }
    process = host + "/" + std::to_string(pid);
  }
  auto comms = doc.find("communicators");
  if (comms == doc.end() || !comms->is_array()) return invalid(file, "no communicators list");
  std::vector<CommunicatorRecord> records;
  try {
    for (size_t i = 0; i < comms->size(); ++i) {
      auto r = readCommunicator((*comms)[i], file + ": communicators[" + std::to_string(i) + "]", file, process);
      if (!r.isOk()) return r.status();
      records.push_back(std::move(*r));
    }
  } catch (const std::exception& e) {  // a member of an unexpected type that value() could not convert
    return invalid(file, std::string("unexpected content: ") + e.what());
  }
  return records;
}

StatusOr<std::vector<CommunicatorRecord>> readTelemetryFile(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, size_t{1} << 30);
  if (!text.isOk()) return text.status();
  return parseTelemetryFile(*text, path);
}

}  // namespace nccl_roce::fleet

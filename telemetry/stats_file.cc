#include "telemetry/stats_file.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "telemetry/chunk_size.h"
#include "telemetry/json_fields.h"
#include "telemetry/nccl_names.h"
#include "telemetry/size_bucket.h"

namespace nccl_roce::telemetry {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Counts past 2^53 are no collective count (and would lose their last digits as Prometheus' float64s).
constexpr uint64_t kMaxExactCount = uint64_t{1} << 53;

// ---- Writing ----

std::string dump(const ordered_json& value) {
  return value.dump(1, ' ', false, ordered_json::error_handler_t::replace);
}

ordered_json stringOrNull(const std::string& value) {
  return value.empty() ? ordered_json(nullptr) : ordered_json(value);
}

double microseconds(double ns) {
  return ns / 1000.0;
}

// A choice's members of a decision or timing line; "chunk_size" only where it is not NCCL's own.
void writeChoice(const Choice& c, ordered_json& out) {
  out["algorithm"] = c.algorithm >= 0 ? ordered_json(algorithmName(c.algorithm)) : ordered_json(nullptr);
  out["protocol"] = c.protocol >= 0 ? ordered_json(protocolName(c.protocol)) : ordered_json(nullptr);
  out["channels"] = c.channels;
  if (c.chunkSize == 0) return;
  std::string label = chunkSizeLabel(c.chunkSize);
  out["chunk_size"] = label[0] == 'x' ? ordered_json(label) : ordered_json(c.chunkSize);
}

// The key's members of a decision or timing line.
void writeKey(const CellKey& key, ordered_json& out) {
  out["collective"] = collectiveName(key.collective);
  out["bucket"] = bucketLabel(key.bucket);
  out["size_min"] = bucketMinBytes(key.bucket);
  out["size_max"] = bucketMaxBytes(key.bucket);
  writeChoice(key.choice, out);
}

void writeIdentity(const PolicyIdentity& id, ordered_json& out) {
  out["experiment"] = stringOrNull(id.experiment);
  out["experiment_hash"] = stringOrNull(id.experimentHash);
  out["policy"] = id.policy;
  out["policy_source"] = id.policySource;
  out["policy_hash"] = id.policyHash;
  out["digest"] = stringOrNull(id.digest);
  out["arm"] = stringOrNull(id.arm);
  if (!id.design.empty()) out["design"] = id.design;
}

void writeDecisions(const std::vector<DecisionCount>& decisions, ordered_json& out) {
  DecisionTotals totals = totalsOf(decisions);
  out["calls"] = totals.calls;
  out["from_rules"] = totals.fromRules;
  out["unavailable"] = totals.unavailable;
  ordered_json lines = ordered_json::array();
  for (const DecisionCount& d : decisions) {
    ordered_json line;
    writeKey(d.key, line);
    line["source"] = decisionSourceName(d.source);
    line["rule"] = stringOrNull(d.rule);
    if (!d.arm.empty()) line["arm"] = d.arm;
    line["count"] = d.count;
    lines.push_back(std::move(line));
  }
  out["decisions"] = std::move(lines);
}

ordered_json keyTimings(const KeyTimings& k) {
  const LogHistogram& h = k.histogram;
  ordered_json out;
  writeKey(k.key, out);
  out["rule"] = stringOrNull(k.rule);
  out["timing_source"] = timingSourceName(k.key.source);
  out["count"] = h.count();
  out["sum_us"] = microseconds(static_cast<double>(h.sumNs()));
  out["min_us"] = microseconds(static_cast<double>(h.minNs()));
  out["max_us"] = microseconds(static_cast<double>(h.maxNs()));
  out["p50_us"] = microseconds(h.quantileNs(0.50).value_or(0));
  out["p90_us"] = microseconds(h.quantileNs(0.90).value_or(0));
  out["p99_us"] = microseconds(h.quantileNs(0.99).value_or(0));
  ordered_json bins = ordered_json::array();
  for (const auto& [bin, count] : h.nonEmptyBins()) bins.push_back({bin, count});
  out["bins"] = std::move(bins);
  return out;
}

ordered_json switchbackCellJson(const SwitchbackCell& c, const std::vector<std::string>& arms) {
  ordered_json out;
  out["collective"] = collectiveName(c.collective);
  out["bucket"] = bucketLabel(c.bucket);
  out["size_min"] = bucketMinBytes(c.bucket);
  out["size_max"] = bucketMaxBytes(c.bucket);
  out["arm"] = c.arm >= 0 && static_cast<size_t>(c.arm) < arms.size() ? arms[static_cast<size_t>(c.arm)] : "";
  out["count"] = c.count;
  out["bin_sum"] = c.binSum;
  out["washed_out"] = c.washedOut;
  out["windows"] = c.windows;
  out["diff_sum"] = c.diffSum;
  out["diff_sum_sq"] = c.diffSumSq;
  return out;
}

ordered_json capturedTurnJson(const CapturedTurn& t, const std::vector<std::string>& arms) {
  ordered_json out;
  out["collective"] = collectiveName(t.collective);
  out["bucket"] = bucketLabel(t.bucket);
  out["size_min"] = bucketMinBytes(t.bucket);
  out["bytes"] = t.bytes;
  out["turn"] = t.turn;
  out["arm"] = t.arm >= 0 && static_cast<size_t>(t.arm) < arms.size() ? arms[static_cast<size_t>(t.arm)] : "";
  out["positions"] = t.positions;
  out["mean_bins"] = t.meanBins;
  out["count"] = t.count;
  out["bin_sum"] = t.binSum;
  out["washed_out"] = t.washedOut;
  return out;
}

ordered_json switchbackJson(const SwitchbackTimings& s) {
  ordered_json out;
  out["arms"] = s.arms;
  out["block"] = s.block;
  out["washout"] = s.washout;
  out["window"] = s.window;
  if (s.turnsPerRound > 0) out["turns_per_round"] = s.turnsPerRound;
  out["windows"] = s.windowsClosed;
  out["unattributed"] = s.unattributed;
  out["cells"] = ordered_json::array();
  for (const SwitchbackCell& c : s.cells) out["cells"].push_back(switchbackCellJson(c, s.arms));
  ordered_json capture;
  capture["tracked"] = s.capturesTracked;
  capture["captured"] = s.captured;
  capture["untracked"] = s.capturedUntracked;
  capture["turns"] = ordered_json::array();
  for (const CapturedTurn& t : s.turns) capture["turns"].push_back(capturedTurnJson(t, s.arms));
  out["capture"] = std::move(capture);
  return out;
}

ordered_json timingsJson(const Timings& timings) {
  ordered_json out;
  out["histogram"] = {{"scheme", "log"},
                      {"relative_error", LogHistogram::kRelativeError},
                      {"min_ns", LogHistogram::kMinNs},
                      {"bins", LogHistogram::kBins}};
  ordered_json dropped;
  for (int i = 0; i < kNumDrops; ++i) dropped[dropName(static_cast<Drop>(i))] = timings.dropped[static_cast<size_t>(i)];
  out["dropped"] = std::move(dropped);
  out["collectives"] = ordered_json::array();
  for (const KeyTimings& k : timings.keys) out["collectives"].push_back(keyTimings(k));
  if (timings.switchback) out["switchback"] = switchbackJson(*timings.switchback);
  return out;
}

// ---- Reading ----

Status invalid(const std::string& where, const std::string& what) {
  return Status(StatusCode::kParseError, where + ": " + what);
}

// An algorithm or protocol: a name `parse` knows, null for unknown, or "any", which versions before the shared key
// wrote for an unknown timing.
template <typename Parse>
bool choiceOrUnknown(const json& line, const char* name, Parse parse, int8_t* out) {
  auto it = line.find(name);
  *out = -1;
  if (it == line.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  if (*it == "any") return true;
  std::optional<int> index = parse(it->get<std::string>());
  if (index) *out = static_cast<int8_t>(*index);
  return index.has_value();
}

bool unsignedAtMost(const json& line, const char* name, uint64_t max, uint64_t* out) {
  auto it = line.find(name);
  if (it == line.end() || !it->is_number_unsigned() || it->get<uint64_t>() > max) return false;
  *out = it->get<uint64_t>();
  return true;
}

// "chunk_size": absent for NCCL's own, whole bytes in 16-byte grains, or a factor such as "x2".
bool readChunkSize(const json& line, uint32_t* code) {
  auto chunk = line.find("chunk_size");
  *code = 0;
  if (chunk == line.end()) return true;
  if (chunk->is_string()) {
    std::optional<uint32_t> factor = chunkSizeFromLabel(chunk->get<std::string>());
    if (!factor || ChunkSize::fromCode(*factor).kind != ChunkSize::Kind::kScaled) return false;
    *code = *factor;
    return true;
  }
  uint64_t bytes = 0;
  if (!unsignedAtMost(line, "chunk_size", UINT32_MAX, &bytes) || bytes % 16 != 0) return false;
  *code = static_cast<uint32_t>(bytes);
  return true;
}

Status readTimingSource(const json& line, const std::string& where, CellKey* key) {
  auto source = line.find("timing_source");
  if (source == line.end()) return Status::ok();
  for (TimingSource s : {TimingSource::kKernelGpu, TimingSource::kKernelGpuBatch, TimingSource::kKernelHost}) {
    if (*source == timingSourceName(s)) key->source = s;
  }
  if (key->source != TimingSource::kNone) return Status::ok();
  return invalid(where, "timing_source is not \"kernel_gpu\", \"kernel_gpu_batch\" or \"kernel_host\"");
}

// What writeKey wrote, and "timing_source" where present.
Status readKey(const json& line, const std::string& where, CellKey* key) {
  *key = CellKey();
  std::string name;
  if (!stringField(line, "collective", &name, false)) return invalid(where, "no collective");
  std::optional<int> collective = parseCollective(name);
  if (!collective) return invalid(where, "unknown collective '" + name + "'");
  key->collective = static_cast<int8_t>(*collective);
  uint64_t sizeMin = 0, channels = 0;
  if (!unsignedAtMost(line, "size_min", UINT64_MAX, &sizeMin)) return invalid(where, "no size_min");
  key->bucket = static_cast<uint8_t>(sizeBucket(sizeMin));
  if (!choiceOrUnknown(line, "algorithm", parseAlgorithm, &key->choice.algorithm)) {
    return invalid(where, "algorithm is neither null nor one of " + algorithmChoices());
  }
  if (!choiceOrUnknown(line, "protocol", parseProtocol, &key->choice.protocol)) {
    return invalid(where, "protocol is neither null nor one of " + protocolChoices());
  }
  if (!unsignedAtMost(line, "channels", 64, &channels)) return invalid(where, "channels is not a whole number 0..64");
  key->choice.channels = static_cast<uint8_t>(channels);
  if (!readChunkSize(line, &key->choice.chunkSize)) {
    return invalid(where, "chunk_size is neither bytes in 16-byte grains nor a factor of NCCL's own such as \"x2\"");
  }
  return readTimingSource(line, where, key);
}

Status readDecision(const json& line, const std::string& where, DecisionCount* d) {
  if (!line.is_object()) return invalid(where, "not an object");
  if (Status key = readKey(line, where, &d->key); !key.isOk()) return key;
  std::string source;
  std::optional<DecisionSource> from =
      stringField(line, "source", &source, false) ? decisionSourceNamed(source) : std::nullopt;
  if (!from) return invalid(where, "source is not \"rule\", \"nccl\" or \"unavailable\"");
  d->source = *from;
  if (!stringField(line, "rule", &d->rule)) return invalid(where, "rule is neither null nor a string");
  if (!stringField(line, "arm", &d->arm)) return invalid(where, "arm is not a string");
  if (!unsignedAtMost(line, "count", kMaxExactCount, &d->count)) return invalid(where, "no count below 2^53");
  return Status::ok();
}

// "decisions" with the totals written beside it, which must agree with it (a hand-edited file does not).
Status readDecisions(const json& comm, const std::string& where, CommunicatorSnapshot& s) {
  auto lines = comm.find("decisions");
  if (lines == comm.end()) return Status::ok();  // an entry only the profiler filled
  if (!lines->is_array()) return invalid(where, "decisions is not a list");
  s.decisions.emplace();
  for (size_t i = 0; i < lines->size(); ++i) {
    DecisionCount d;
    Status read = readDecision((*lines)[i], where + " decisions[" + std::to_string(i) + "]", &d);
    if (!read.isOk()) return read;
    s.decisions->push_back(std::move(d));
  }
  DecisionTotals totals = totalsOf(*s.decisions);
  for (auto [name, value] :
       {std::pair{"calls", totals.calls}, {"from_rules", totals.fromRules}, {"unavailable", totals.unavailable}}) {
    auto written = comm.find(name);
    if (written != comm.end() && (!written->is_number_unsigned() || written->get<uint64_t>() != value)) {
      return invalid(where, std::string(name) + " is not what its decisions add up to (" + std::to_string(value) + ")");
    }
  }
  return Status::ok();
}

// One timed key: its key, its rule, and a histogram from its bins, which must add up to its count; the exact
// sum, minimum and maximum as written.
Status readKeyTimings(const json& line, const std::string& where, KeyTimings* k) {
  if (!line.is_object()) return invalid(where, "not an object");
  if (Status key = readKey(line, where, &k->key); !key.isOk()) return key;
  // Every duration has a clock; a line without one was not written by the plugin (and could not be written back).
  if (k->key.source == TimingSource::kNone) return invalid(where, "no timing_source");
  if (!stringField(line, "rule", &k->rule)) return invalid(where, "rule is neither null nor a string");
  uint64_t count = 0;
  auto bins = line.find("bins");
  if (!unsignedAtMost(line, "count", kMaxExactCount, &count)) return invalid(where, "no count below 2^53");
  if (bins == line.end() || !bins->is_array()) return invalid(where, "no bins");
  for (const json& bin : *bins) {
    if (!bin.is_array() || bin.size() != 2 || !bin[0].is_number_unsigned() || !bin[1].is_number_unsigned() ||
        bin[0].get<uint64_t>() >= static_cast<uint64_t>(LogHistogram::kBins) ||
        bin[1].get<uint64_t>() > kMaxExactCount) {
      return invalid(where, "a bin is not [index < " + std::to_string(LogHistogram::kBins) + ", count below 2^53]");
    }
    k->histogram.addToBin(static_cast<int>(bin[0].get<uint64_t>()), bin[1].get<uint64_t>());
  }
  if (k->histogram.count() != count) {
    return invalid(where, "bins hold " + std::to_string(k->histogram.count()) + " collectives, count says " +
                              std::to_string(count));
  }
  auto ns = [&](const char* name) {
    auto it = line.find(name);
    double us = it != line.end() && it->is_number() ? it->get<double>() : -1;
    return us >= 0 && us < 1e15 ? std::optional<uint64_t>(static_cast<uint64_t>(std::llround(us * 1000)))
                                : std::nullopt;
  };
  std::optional<uint64_t> sum = ns("sum_us"), min = ns("min_us"), max = ns("max_us");
  if (count > 0 && sum && min && max) k->histogram.restoreMoments(*sum, *min, *max);
  return Status::ok();
}

bool finiteNumber(const json& object, const char* name, double* out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>())) return false;
  *out = it->get<double>();
  return true;
}

Status readSwitchbackCell(const json& line, const std::string& where, const std::vector<std::string>& arms,
                          SwitchbackCell* c) {
  if (!line.is_object()) return invalid(where, "not an object");
  std::string name, arm;
  std::optional<int> collective = stringField(line, "collective", &name, false) ? parseCollective(name) : std::nullopt;
  uint64_t sizeMin = 0;
  if (!collective || !unsignedAtMost(line, "size_min", UINT64_MAX, &sizeMin)) {
    return invalid(where, "collective or size_min is not what the plugin writes");
  }
  c->collective = *collective;
  c->bucket = sizeBucket(sizeMin);
  auto named = std::find(arms.begin(), arms.end(), stringField(line, "arm", &arm, false) ? arm : std::string());
  if (named == arms.end()) return invalid(where, "arm is not one of the switchback's arms");
  c->arm = static_cast<int>(named - arms.begin());
  if (!unsignedAtMost(line, "count", kMaxExactCount, &c->count) ||
      !unsignedAtMost(line, "bin_sum", UINT64_MAX, &c->binSum) ||
      !unsignedAtMost(line, "washed_out", kMaxExactCount, &c->washedOut) ||
      !unsignedAtMost(line, "windows", kMaxExactCount, &c->windows) || !finiteNumber(line, "diff_sum", &c->diffSum) ||
      !finiteNumber(line, "diff_sum_sq", &c->diffSumSq) || c->diffSumSq < 0) {
    return invalid(where,
                   "count, bin_sum, washed_out and windows are not counts, or diff_sum and diff_sum_sq are not "
                   "finite sums (the latter of squares)");
  }
  return Status::ok();
}

Status readCapturedTurn(const json& line, const std::string& where, const std::vector<std::string>& arms,
                        CapturedTurn* t) {
  if (!line.is_object()) return invalid(where, "not an object");
  std::string name, arm;
  std::optional<int> collective = stringField(line, "collective", &name, false) ? parseCollective(name) : std::nullopt;
  uint64_t sizeMin = 0, positions = 0, washedOut = 0;
  if (!collective || !unsignedAtMost(line, "size_min", UINT64_MAX, &sizeMin)) {
    return invalid(where, "collective or size_min is not what the plugin writes");
  }
  t->collective = *collective;
  t->bucket = sizeBucket(sizeMin);
  auto named = std::find(arms.begin(), arms.end(), stringField(line, "arm", &arm, false) ? arm : std::string());
  if (named == arms.end()) return invalid(where, "arm is not one of the switchback's arms");
  t->arm = static_cast<int>(named - arms.begin());
  if (!unsignedAtMost(line, "bytes", UINT64_MAX, &t->bytes) || sizeBucket(t->bytes) != t->bucket ||
      !unsignedAtMost(line, "turn", kMaxExactCount, &t->turn) ||
      !unsignedAtMost(line, "positions", UINT32_MAX, &positions) ||
      !unsignedAtMost(line, "washed_out", UINT32_MAX, &washedOut) ||
      !unsignedAtMost(line, "count", kMaxExactCount, &t->count) ||
      !unsignedAtMost(line, "bin_sum", UINT64_MAX, &t->binSum) || !finiteNumber(line, "mean_bins", &t->meanBins) ||
      t->meanBins < 0 || t->count < positions) {
    return invalid(where,
                   "bytes is not a size in the bucket, turn, positions, washed_out, count and bin_sum are not counts "
                   "(a replay at least per position), or mean_bins is not a finite sum of bins");
  }
  t->positions = static_cast<uint32_t>(positions);
  t->washedOut = static_cast<uint32_t>(washedOut);
  return Status::ok();
}

// Schema /4's record of the collectives captured into CUDA graphs; absent in /3, whose profiler did not tell them.
Status readCapture(const json& sb, const std::string& where, SwitchbackTimings* s) {
  auto capture = sb.find("capture");
  if (capture == sb.end()) return Status::ok();
  auto turns = capture->is_object() ? capture->find("turns") : capture->end();
  if (!capture->is_object() || !capture->contains("tracked") || !(*capture)["tracked"].is_boolean() ||
      !unsignedAtMost(*capture, "captured", kMaxExactCount, &s->captured) ||
      !unsignedAtMost(*capture, "untracked", kMaxExactCount, &s->capturedUntracked) || turns == capture->end() ||
      !turns->is_array()) {
    return invalid(where, "timing.switchback.capture is not {tracked, captured, untracked, turns}");
  }
  s->capturesTracked = (*capture)["tracked"].get<bool>();
  for (size_t i = 0; i < turns->size(); ++i) {
    CapturedTurn t;
    Status read = readCapturedTurn((*turns)[i], where + " timing.switchback.capture.turns[" + std::to_string(i) + "]",
                                   s->arms, &t);
    if (!read.isOk()) return read;
    s->turns.push_back(t);
  }
  return Status::ok();
}

Status readSwitchback(const json& sb, const std::string& where, SwitchbackTimings* s) {
  int64_t block = 0, washout = 0, window = 0;
  if (!sb.is_object() || !sb.contains("arms") || !sb["arms"].is_array() || sb["arms"].size() < 2 ||
      !sb.contains("block") || !sb.contains("washout") || !sb.contains("window") ||
      !intField(sb, "block", 1, UINT32_MAX, &block) || !intField(sb, "washout", 0, UINT32_MAX, &washout) ||
      !intField(sb, "window", 1, UINT32_MAX, &window) ||
      !unsignedAtMost(sb, "windows", kMaxExactCount, &s->windowsClosed) ||
      !unsignedAtMost(sb, "unattributed", kMaxExactCount, &s->unattributed)) {
    return invalid(where,
                   "timing.switchback is not {arms (two or more), block, washout, window, windows, "
                   "unattributed, cells}");
  }
  s->block = static_cast<uint32_t>(block);
  s->washout = static_cast<uint32_t>(washout);
  s->window = static_cast<uint32_t>(window);
  int64_t turnsPerRound = 0;
  if (sb.contains("turns_per_round") && !intField(sb, "turns_per_round", 1, UINT32_MAX, &turnsPerRound)) {
    return invalid(where, "timing.switchback.turns_per_round is not a count of turns");
  }
  s->turnsPerRound = static_cast<uint32_t>(turnsPerRound);
  for (const json& name : sb["arms"]) {
    if (!name.is_string()) return invalid(where, "timing.switchback.arms are not names");
    s->arms.push_back(name.get<std::string>());
  }
  auto cells = sb.find("cells");
  if (cells == sb.end() || !cells->is_array()) return invalid(where, "timing.switchback.cells is not a list");
  for (size_t i = 0; i < cells->size(); ++i) {
    SwitchbackCell c;
    Status read =
        readSwitchbackCell((*cells)[i], where + " timing.switchback.cells[" + std::to_string(i) + "]", s->arms, &c);
    if (!read.isOk()) return read;
    s->cells.push_back(c);
  }
  return readCapture(sb, where, s);
}

Status readTimings(const json& timing, const std::string& where, Timings* t) {
  if (!timing.is_object()) return invalid(where, "timing is not an object");
  auto histogram = timing.find("histogram");
  int bins = 0;
  if (histogram == timing.end() || !histogram->is_object() || histogram->value("scheme", "") != "log" ||
      !intField(*histogram, "bins", 0, INT32_MAX, &bins) || bins != LogHistogram::kBins ||
      histogram->value("relative_error", 0.0) != LogHistogram::kRelativeError) {
    return invalid(where, "timing.histogram is not the 1% log scheme of 1024 bins this version reads");
  }
  if (auto dropped = timing.find("dropped"); dropped != timing.end() && dropped->is_object()) {
    for (const auto& [name, count] : dropped->items()) {
      std::optional<Drop> why = dropNamed(name);
      if (why && count.is_number_unsigned()) t->dropped[static_cast<size_t>(*why)] = count.get<uint64_t>();
    }
  }
  auto keys = timing.find("collectives");
  if (keys == timing.end() || !keys->is_array()) return invalid(where, "timing.collectives is not a list");
  for (size_t i = 0; i < keys->size(); ++i) {
    KeyTimings k;
    Status read = readKeyTimings((*keys)[i], where + " timing.collectives[" + std::to_string(i) + "]", &k);
    if (!read.isOk()) return read;
    t->keys.push_back(std::move(k));
  }
  if (auto sb = timing.find("switchback"); sb != timing.end()) {
    t->switchback.emplace();
    return readSwitchback(*sb, where, &*t->switchback);
  }
  return Status::ok();
}

// What schema /3 adds to an entry: its number in its process, live or final, and when it was last updated.
Status readEntryState(const json& comm, const std::string& where, StatsEntry* e) {
  int64_t number = -1;
  if (!intField(comm, "entry", 1, INT64_MAX, &number) || number < 1)
    return invalid(where, "entry is not a number from 1");
  e->number = static_cast<uint64_t>(number);
  std::string state, updated;
  if (!stringField(comm, "state", &state, false) || (state != "live" && state != "final")) {
    return invalid(where, "state is neither \"live\" nor \"final\"");
  }
  e->live = state == "live";
  std::optional<int64_t> ms = stringField(comm, "updated", &updated, false) ? parseUtcMillis(updated) : std::nullopt;
  if (!ms) return invalid(where, "updated is not a UTC time such as 2026-03-01T12:34:56.789Z");
  e->updatedMs = *ms;
  return Status::ok();
}

// The tuner's identity, present when the entry has a "policy" (a profiler-only entry has none).
Status readIdentity(const json& comm, const std::string& where, CommunicatorSnapshot& s) {
  if (!comm.contains("policy") && !comm.contains("arm") && !comm.contains("experiment")) return Status::ok();
  PolicyIdentity id;
  id.policy.clear();
  for (auto [name, out] : {std::pair{"experiment", &id.experiment},
                           {"experiment_hash", &id.experimentHash},
                           {"policy", &id.policy},
                           {"policy_source", &id.policySource},
                           {"policy_hash", &id.policyHash},
                           {"digest", &id.digest},
                           {"arm", &id.arm},
                           {"design", &id.design}}) {
    if (!stringField(comm, name, out)) return invalid(where, std::string(name) + " is not a string");
  }
  s.identity = std::move(id);
  return Status::ok();
}

Status readChunkSizeCounts(const json& comm, const std::string& where, CommunicatorSnapshot& s) {
  auto chunks = comm.find("chunk_sizes");
  if (chunks == comm.end()) return Status::ok();
  ChunkSizeCounts serving;
  if (!chunks->is_object() || !unsignedAtMost(*chunks, "served", UINT64_MAX, &serving.served) ||
      !unsignedAtMost(*chunks, "refused", UINT64_MAX, &serving.refused) ||
      !unsignedAtMost(*chunks, "ambiguous", UINT64_MAX, &serving.ambiguous)) {
    return invalid(where, "chunk_sizes is not {\"served\", \"refused\", \"ambiguous\"} counts");
  }
  s.chunkSizes = serving;
  return Status::ok();
}

Status readShape(const json& comm, const std::string& where, CommunicatorSnapshot& s) {
  std::string id;
  std::optional<uint64_t> commId = stringField(comm, "comm_id", &id, false) ? parseHexId(id) : std::nullopt;
  if (!commId) return invalid(where, "comm_id is not a hex id such as 0x1f2e3d4c5b6a7980");
  s.commId = *commId;
  // NCCL's communicators hold at most a few hundred thousand ranks; anything past int's range is not a count.
  if (!intField(comm, "n_ranks", 0, INT32_MAX, &s.nRanks)) return invalid(where, "n_ranks is not a whole number");
  if (!intField(comm, "n_nodes", 0, INT32_MAX, &s.nNodes)) return invalid(where, "n_nodes is not a whole number");
  int rank = -1;
  if (!intField(comm, "rank", 0, INT32_MAX, &rank)) return invalid(where, "rank is not a whole number");
  if (rank >= 0) s.rank = rank;
  return Status::ok();
}

StatusOr<StatsEntry> readEntry(const json& comm, const std::string& where, bool named) {
  StatsEntry e;
  if (!comm.is_object()) return invalid(where, "not an object");
  if (Status state = named ? readEntryState(comm, where, &e) : Status::ok(); !state.isOk()) return state;
  CommunicatorSnapshot& s = e.comm;
  for (auto read : {readShape, readIdentity, readDecisions, readChunkSizeCounts}) {
    if (Status status = read(comm, where, s); !status.isOk()) return status;
  }
  if (auto timing = comm.find("timing"); timing != comm.end()) {
    s.timings.emplace();
    if (Status status = readTimings(*timing, where, &*s.timings); !status.isOk()) return status;
  }
  return e;
}

Status readHeader(const json& doc, const std::string& name, StatsFileHeader* header) {
  if (!doc.is_object() || !stringField(doc, "schema", &header->schema) ||
      (header->schema != kStatsSchema && header->schema != kStatsSchemaV3 && header->schema != kStatsSchemaV2)) {
    return Status(StatusCode::kParseError, name + ": not a statistics file of schema " + kStatsSchema + ", " +
                                               kStatsSchemaV3 + " or " + kStatsSchemaV2);
  }
  if (header->schema == kStatsSchemaV2) return Status::ok();
  int64_t pid = -1;
  if (!stringField(doc, "host", &header->host, false) || !intField(doc, "pid", 0, INT64_MAX, &pid) || pid < 0) {
    return Status(StatusCode::kParseError, name + ": the header has no host and pid, which name its entries");
  }
  header->pid = pid;
  return Status::ok();
}

}  // namespace

std::string renderStatsEntry(const StatsEntry& entry) {
  const CommunicatorSnapshot& s = entry.comm;
  ordered_json out;
  out["entry"] = entry.number;
  out["state"] = entry.live ? "live" : "final";
  out["updated"] = formatUtcMillis(entry.updatedMs);
  out["comm_id"] = formatHexId(s.commId);
  if (s.nRanks > 0) {  // v1-v3 profilers are not told; a tuner always is
    out["n_ranks"] = s.nRanks;
    out["n_nodes"] = s.nNodes;
  }
  if (s.rank) out["rank"] = *s.rank;
  if (s.identity) writeIdentity(*s.identity, out);
  if (s.decisions) writeDecisions(*s.decisions, out);
  if (s.chunkSizes) {
    out["chunk_sizes"] = {
        {"served", s.chunkSizes->served}, {"refused", s.chunkSizes->refused}, {"ambiguous", s.chunkSizes->ambiguous}};
  }
  if (s.timings) out["timing"] = timingsJson(*s.timings);
  return dump(out);
}

std::string renderStatsFile(const StatsFileHeader& header, const std::vector<const std::string*>& entries) {
  ordered_json head;
  head["schema"] = header.schema;
  head["pid"] = header.pid;
  head["host"] = header.host;
  std::string text = dump(head);
  text.pop_back();  // the closing brace: the communicators go inside the same object
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  text += ",\n \"communicators\": [";
  for (size_t i = 0; i < entries.size(); ++i) text += (i == 0 ? "\n" : ",\n") + *entries[i];
  return text + "\n ]\n}\n";
}

StatusOr<StatsFile> parseStatsFile(std::string_view text, const std::string& name) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status(StatusCode::kParseError, name + ": not valid JSON (truncated, or not a statistics file)");
  }
  StatsFile file;
  try {
    if (Status header = readHeader(doc, name, &file.header); !header.isOk()) return header;
    auto comms = doc.find("communicators");
    if (comms == doc.end() || !comms->is_array())
      return Status(StatusCode::kParseError, name + ": no communicators list");
    bool named = file.header.schema != kStatsSchemaV2;
    for (size_t i = 0; i < comms->size(); ++i) {
      StatusOr<StatsEntry> e = readEntry((*comms)[i], name + ": communicators[" + std::to_string(i) + "]", named);
      if (!e.isOk()) return e.status();
      file.entries.push_back(std::move(*e));
    }
  } catch (const std::exception& e) {  // a member of an unexpected type that value() could not convert
    return Status(StatusCode::kParseError, name + ": unexpected content: " + e.what());
  }
  return file;
}

}  // namespace nccl_roce::telemetry

#include "fleet/telemetry_reader.h"

#include <utility>

#include "common/file.h"
#include "telemetry/stats_file.h"

namespace nccl_roce::fleet {

namespace {

// One timed key: its count and bin sum into its clock and cell. Bin 0 holds durations at or below the histogram's
// 0.1 us floor, which no collective takes: the clock could not resolve them, so they are dropped and counted.
void addKey(const telemetry::KeyTimings& k, CommunicatorRecord& r) {
  uint64_t zero = k.histogram.binCount(0);
  r.zeroDurations += zero;
  CellTimings timings{k.histogram.count() - zero, k.histogram.binSum()};
  if (timings.count == 0) return;
  r.timings[clockOf(k.key.source)][cellOf(k.key.collective, k.key.bucket)].add(timings);
}

void addDecision(const telemetry::DecisionCount& d, CommunicatorRecord& r) {
  TunerDecision decision{d.key.choice, d.source, d.rule, d.arm};
  r.decisions[cellOf(d.key.collective, d.key.bucket)][decision] += d.count;
}

}  // namespace

SwitchbackRecord switchbackRecordOf(const telemetry::SwitchbackTimings& t) {
  SwitchbackRecord out;
  out.arms = t.arms;
  out.block = t.block;
  out.window = t.window;
  out.windows = t.windowsClosed;
  out.unattributed = t.unattributed;
  for (const telemetry::SwitchbackCell& c : t.cells) {
    SwitchbackArmCell& cell = out.cells[{cellOf(c.collective, c.bucket), t.arms.at(static_cast<size_t>(c.arm))}];
    cell.count = c.count;
    cell.binSum = c.binSum;
    cell.washedOut = c.washedOut;
    cell.paired = {static_cast<double>(c.windows), c.diffSum, c.diffSumSq};
  }
  out.turnsPerRound = t.turnsPerRound;
  out.capturesTracked = t.capturesTracked;
  out.captured = t.captured;
  out.capturedUntracked = t.capturedUntracked;
  for (const telemetry::CapturedTurn& c : t.turns) {
    if (c.positions == 0 && c.washedOut == 0) continue;
    CapturedTurnCell& turn =
        out.turns[{cellOf(c.collective, c.bucket), c.bytes, c.turn, t.arms.at(static_cast<size_t>(c.arm))}];
    turn.meanSum = c.positions > 0 ? c.meanBins / c.positions : 0;
    turn.ranks = c.positions > 0 ? 1 : 0;
    turn.positions = c.positions;
    turn.washedOut = c.washedOut;
    turn.count = c.count;
    turn.binSum = c.binSum;
  }
  return out;
}

namespace {

// `process`: "host/pid" in schema /3, "" in /2 (whose entries are all final and never taken for one another).
CommunicatorRecord recordOf(const telemetry::StatsEntry& e, const std::string& file, const std::string& process) {
  const telemetry::CommunicatorSnapshot& s = e.comm;
  CommunicatorRecord r;
  r.file = file;
  r.fromStatistics = true;
  r.commId = s.commId;
  r.nRanks = s.nRanks;
  r.nNodes = s.nNodes;
  r.rank = s.rank;
  if (s.identity) {
    r.experiment = s.identity->experiment;
    r.experimentHash = s.identity->experimentHash;
    r.arm = s.identity->arm;
    r.policy = s.identity->policy;
    r.policyHash = s.identity->policyHash;
    r.design = s.identity->design;
  }
  if (s.timings) {
    for (const telemetry::KeyTimings& k : s.timings->keys) addKey(k, r);
    if (s.timings->switchback) r.switchback = switchbackRecordOf(*s.timings->switchback);
  }
  if (s.decisions) {
    for (const telemetry::DecisionCount& d : *s.decisions) addDecision(d, r);
  }
  if (!process.empty()) {
    r.entryId = process + "/" + std::to_string(e.number);
    r.live = e.live;
    r.updatedMs = e.updatedMs;
    r.cumulativeCount = s.cumulativeCount();
  }
  return r;
}

}  // namespace

StatusOr<std::vector<CommunicatorRecord>> parseTelemetryFile(const std::string& text, const std::string& file) {
  StatusOr<telemetry::StatsFile> parsed = telemetry::parseStatsFile(text, file);
  if (!parsed.isOk()) return parsed.status();
  const telemetry::StatsFileHeader& header = parsed->header;
  std::string process =
      header.schema == telemetry::kStatsSchemaV2 ? "" : header.host + "/" + std::to_string(header.pid);
  std::vector<CommunicatorRecord> records;
  for (const telemetry::StatsEntry& e : parsed->entries) records.push_back(recordOf(e, file, process));
  return records;
}

StatusOr<std::vector<CommunicatorRecord>> readTelemetryFile(const std::string& path) {
  StatusOr<std::string> text = readFileBounded(path, size_t{1} << 30);
  if (!text.isOk()) return text.status();
  return parseTelemetryFile(*text, path);
}

}  // namespace nccl_roce::fleet

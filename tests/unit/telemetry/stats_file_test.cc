// The statistics file as the plugin writes it and `nccl-roce ab` reads it: one module writes and reads it, so
// whatever is written reads back as it was, files of earlier versions still read, and anything else is an error
// that names the file, the entry and the member.
#include "telemetry/stats_file.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "telemetry/chunk_size.h"

namespace nccl_roce::telemetry {
namespace {

constexpr int kAllGather = 2, kAllReduce = 4;
constexpr int kTree = 0, kRing = 1, kLL = 0, kLL128 = 1, kSimple = 2;

KeyTimings timed(const CellKey& key, std::vector<uint64_t> durationsNs, const std::string& rule = "") {
  KeyTimings k;
  k.key = key;
  for (uint64_t d : durationsNs) k.histogram.record(d);
  k.rule = rule;
  return k;
}

// A communicator as an A/B pod's tuner and profiler report it.
CommunicatorSnapshot abPodCommunicator() {
  CommunicatorSnapshot s;
  s.commId = 0x1f2e3d4c5b6a7980;
  s.nRanks = 16;
  s.nNodes = 2;
  s.rank = 3;
  PolicyIdentity id;
  id.experiment = "decode-ll";
  id.experimentHash = "sha256:" + std::string(64, 'a');
  id.policy = "decode-ll";
  id.policySource = "/etc/nccl-roce/decode-ll.toml";
  id.policyHash = "sha256:" + std::string(64, 'b');
  id.digest = id.experimentHash;
  id.arm = "candidate";
  s.identity = id;
  CellKey ringLL = cellKey(kAllReduce, 65536, kRing, kLL, 0);
  s.decisions =
      std::vector<DecisionCount>{{ringLL, DecisionSource::kRule, "decode-ll", "", 5000},
                                 {cellKey(kAllReduce, 1 << 24, kRing, kSimple, 0), DecisionSource::kNccl, "", "", 17}};
  Timings t;
  t.dropped[static_cast<size_t>(Drop::kMissingParent)] = 2;
  CellKey ran = cellKey(kAllReduce, 65536, kRing, kLL, 4);
  ran.source = TimingSource::kKernelGpu;
  t.keys.push_back(timed(ran, {38100, 41900, 41900, 44000, 120400}, "decode-ll"));
  s.timings = t;
  return s;
}

StatsFile readBack(const std::vector<StatsEntry>& entries,
                   const StatsFileHeader& header = {kStatsSchema, "node-a", 1234}) {
  std::vector<std::string> texts;
  for (const StatsEntry& e : entries) texts.push_back(renderStatsEntry(e));
  std::vector<const std::string*> pointers;
  for (const std::string& t : texts) pointers.push_back(&t);
  StatusOr<StatsFile> file = parseStatsFile(renderStatsFile(header, pointers), "stats.1234.json");
  EXPECT_TRUE(file.isOk()) << file.status().toString();
  return file.isOk() ? *file : StatsFile();
}

void expectSameSnapshot(const CommunicatorSnapshot& back, const CommunicatorSnapshot& written) {
  EXPECT_EQ(back.commId, written.commId);
  EXPECT_EQ(back.nRanks, written.nRanks);
  EXPECT_EQ(back.nNodes, written.nNodes);
  EXPECT_EQ(back.rank, written.rank);
  EXPECT_EQ(back.identity, written.identity);
  EXPECT_EQ(back.decisions, written.decisions);
  EXPECT_EQ(back.chunkSizes, written.chunkSizes);
  ASSERT_EQ(back.timings.has_value(), written.timings.has_value());
  if (!written.timings) return;
  EXPECT_EQ(back.timings->dropped, written.timings->dropped);
  EXPECT_EQ(back.timings->switchback, written.timings->switchback);
  ASSERT_EQ(back.timings->keys.size(), written.timings->keys.size());
  for (size_t i = 0; i < written.timings->keys.size(); ++i) {
    const KeyTimings &a = back.timings->keys[i], &b = written.timings->keys[i];
    EXPECT_EQ(a.key, b.key);
    EXPECT_EQ(a.rule, b.rule);
    EXPECT_EQ(a.histogram.nonEmptyBins(), b.histogram.nonEmptyBins());
    EXPECT_EQ(a.histogram.sumNs(), b.histogram.sumNs());
    EXPECT_EQ(a.histogram.minNs(), b.histogram.minNs());
    EXPECT_EQ(a.histogram.maxNs(), b.histogram.maxNs());
  }
}

TEST(StatsFile, AnEntryReadsBackAsItWasWritten) {
  StatsEntry live{7, true, 1772368496789, abPodCommunicator()};
  StatsEntry final{8, false, 1772368500000, abPodCommunicator()};
  final.comm.chunkSizes = ChunkSizeCounts{10, 2, 1};
  StatsFile file = readBack({live, final});
  EXPECT_EQ(file.header.host, "node-a");
  EXPECT_EQ(file.header.pid, 1234);
  ASSERT_EQ(file.entries.size(), 2u);
  EXPECT_EQ(file.entries[0].number, 7u);
  EXPECT_TRUE(file.entries[0].live);
  EXPECT_EQ(file.entries[0].updatedMs, 1772368496789);
  EXPECT_FALSE(file.entries[1].live);
  expectSameSnapshot(file.entries[0].comm, live.comm);
  expectSameSnapshot(file.entries[1].comm, final.comm);
}

// What docs/ab-testing.md shows and share/nccl-roce/schemas/stats.schema.json describes, member by member.
TEST(StatsFile, EntriesAreWrittenAsTheDocsShow) {
  nlohmann::ordered_json e =
      nlohmann::ordered_json::parse(renderStatsEntry({7, true, 1772368496789, abPodCommunicator()}));
  std::vector<std::string> members;
  for (const auto& item : e.items()) members.push_back(item.key());
  EXPECT_EQ(members,
            (std::vector<std::string>{"entry", "state", "updated", "comm_id", "n_ranks", "n_nodes", "rank",
                                      "experiment", "experiment_hash", "policy", "policy_source", "policy_hash",
                                      "digest", "arm", "calls", "from_rules", "unavailable", "decisions", "timing"}));
  EXPECT_EQ(e["updated"], "2026-03-01T12:34:56.789Z");
  EXPECT_EQ(e["comm_id"], "0x1f2e3d4c5b6a7980");
  EXPECT_EQ(e["calls"], 5017);
  EXPECT_EQ(e["from_rules"], 5000);
  EXPECT_EQ(e["decisions"][0].dump(), R"({"collective":"AllReduce","bucket":"64K-128K","size_min":65536,)"
                                      R"("size_max":131071,"algorithm":"Ring","protocol":"LL","channels":0,)"
                                      R"("source":"rule","rule":"decode-ll","count":5000})");
  const auto& key = e["timing"]["collectives"][0];
  EXPECT_EQ(key["timing_source"], "kernel_gpu");
  EXPECT_EQ(key["count"], 5);
  nlohmann::json bins = nlohmann::json::array();  // [bin, count] of each non-empty bin, ascending
  for (uint64_t ns : {38100, 41900, 44000, 120400}) bins.push_back({LogHistogram::binOf(ns), ns == 41900 ? 2 : 1});
  EXPECT_EQ(key["bins"].dump(), bins.dump());
  EXPECT_EQ(e["timing"]["dropped"]["missing_parent"], 2);
}

TEST(StatsFile, ChunkSizesAreBytesOrFactorsAndAbsentForNcclsOwn) {
  CommunicatorSnapshot s;
  s.decisions = std::vector<DecisionCount>{
      {cellKey(kAllReduce, 4096, kRing, kSimple, 0, 524288), DecisionSource::kRule, "big", "", 1},
      {cellKey(kAllReduce, 8192, kRing, kSimple, 0, ChunkSize::scaled(1).code()), DecisionSource::kRule, "x2", "", 1},
      {cellKey(kAllReduce, 16384, kRing, kSimple, 0), DecisionSource::kRule, "own", "", 1}};
  auto e = nlohmann::json::parse(renderStatsEntry({1, false, 0, s}));
  EXPECT_EQ(e["decisions"][0]["chunk_size"], 524288);
  EXPECT_EQ(e["decisions"][1]["chunk_size"], "x2");
  EXPECT_FALSE(e["decisions"][2].contains("chunk_size"));
  EXPECT_EQ(readBack({{1, false, 0, s}}).entries[0].comm.decisions, s.decisions);
}

// Entries with only one producer's part: a tuner without a profiler, a profiler without a tuner (NCCL 2.23-2.26
// profilers are not told the shape), and an experiment's arm per decision line.
TEST(StatsFile, PartialEntriesReadBackWithoutThePartTheyLack) {
  CommunicatorSnapshot tunerOnly = abPodCommunicator();
  tunerOnly.timings.reset();
  tunerOnly.rank.reset();
  CommunicatorSnapshot profilerOnly = abPodCommunicator();
  profilerOnly.identity.reset();
  profilerOnly.decisions.reset();
  profilerOnly.nRanks = profilerOnly.nNodes = 0;
  profilerOnly.rank.reset();
  CommunicatorSnapshot perLineArms = tunerOnly;
  (*perLineArms.decisions)[0].arm = "control";
  StatsFile file = readBack({{1, false, 0, tunerOnly}, {2, false, 0, profilerOnly}, {3, false, 0, perLineArms}});
  ASSERT_EQ(file.entries.size(), 3u);
  expectSameSnapshot(file.entries[0].comm, tunerOnly);
  expectSameSnapshot(file.entries[1].comm, profilerOnly);
  expectSameSnapshot(file.entries[2].comm, perLineArms);
}

// Random snapshots of every shape the writer can meet read back exactly.
TEST(StatsFile, RandomSnapshotsReadBackExactly) {
  std::mt19937_64 random(2026);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint64_t>(n)); };
  for (int round = 0; round < 200; ++round) {
    CommunicatorSnapshot s;
    s.commId = random();
    s.nRanks = 1 + pick(512);
    s.nNodes = 1 + pick(64);
    if (pick(2)) s.rank = pick(s.nRanks);
    if (pick(3)) {
      s.identity = PolicyIdentity();
      if (pick(2)) s.identity->arm = "arm-" + std::to_string(pick(5));
      s.decisions.emplace();
      for (int d = pick(6); d > 0; --d) {
        CellKey key = cellKey(pick(5), random() >> pick(64), pick(8) - 1, pick(4) - 1, pick(65),
                              pick(3) == 0 ? ChunkSize::scaled(pick(2) ? 1 : -2).code() : 16 * uint32_t(pick(1000)));
        s.decisions->push_back({key, static_cast<DecisionSource>(pick(3)), pick(2) ? "r" + std::to_string(pick(9)) : "",
                                "", random() >> 12});
      }
      std::sort(s.decisions->begin(), s.decisions->end());
    }
    if (pick(2)) {
      s.timings.emplace();
      for (int k = pick(4); k > 0; --k) {
        CellKey key = cellKey(pick(5), random() >> pick(64), pick(7), pick(3), pick(65));
        key.source = static_cast<TimingSource>(1 + pick(3));
        std::vector<uint64_t> durations;
        for (int n = 1 + pick(50); n > 0; --n) durations.push_back(random() >> (28 + pick(20)));
        s.timings->keys.push_back(timed(key, durations, pick(2) ? "rule" : ""));
      }
    }
    StatsFile file = readBack({{static_cast<uint64_t>(1 + round), pick(2) == 0, 1700000000000 + pick(1 << 30), s}});
    ASSERT_EQ(file.entries.size(), 1u);
    expectSameSnapshot(file.entries[0].comm, s);
  }
}

// nccl-roce.stats/2, which earlier versions wrote at finalize only: no header host or pid, no entry, state or
// updated; "any" where a timing's algorithm was unknown, no chunk_size.
TEST(StatsFile, FilesOfTheEarlierSchemaStillRead) {
  const char* v2 = R"({"schema": "nccl-roce.stats/2", "communicators": [
    {"comm_id": "0x00000000000000aa", "n_ranks": 8, "n_nodes": 1, "rank": 2, "experiment": "e", "arm": "control",
     "policy": "nccl", "policy_hash": "", "calls": 3, "from_rules": 0, "unavailable": 0,
     "decisions": [{"collective": "AllReduce", "bucket": "64K-128K", "size_min": 65536, "size_max": 131071,
                    "algorithm": "Ring", "protocol": "LL", "channels": 0, "source": "nccl", "rule": null, "count": 3}],
     "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100, "bins": 1024},
                "collectives": [{"collective": "AllReduce", "bucket": "64K-128K", "size_min": 65536,
                                 "size_max": 131071, "algorithm": "any", "protocol": "LL", "channels": 2,
                                 "rule": null, "timing_source": "kernel_gpu", "count": 2, "bins": [[300, 2]]}]}}]})";
  StatusOr<StatsFile> file = parseStatsFile(v2, "old.json");
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  ASSERT_EQ(file->entries.size(), 1u);
  const StatsEntry& e = file->entries[0];
  EXPECT_EQ(e.number, 0u);
  EXPECT_FALSE(e.live);
  EXPECT_EQ(e.comm.identity->arm, "control");
  EXPECT_EQ(e.comm.timings->keys[0].key.choice.algorithm, -1);
  EXPECT_EQ(e.comm.timings->keys[0].key.choice.chunkSize, 0u);
  EXPECT_EQ(e.comm.timings->keys[0].histogram.count(), 2u);
}

// A switchback's entry: the design instead of one arm, each decision line's arm, and the windows per arm and bucket
// (telemetry/switchback.h); what `nccl-roce ab` reads back is what the plugin wrote, sums of doubles to the bit.
TEST(StatsFile, ASwitchbackEntryReadsBackWithItsArmsAndWindows) {
  CommunicatorSnapshot s = abPodCommunicator();
  s.identity->arm.clear();
  s.identity->design = "switchback";
  (*s.decisions)[0].arm = "candidate";
  for (auto& d : *s.decisions) {
    if (d.arm.empty()) d.arm = "control";
  }
  SwitchbackTimings sb;
  sb.arms = {"control", "candidate", "explore ring/ll"};
  sb.block = 16;
  sb.washout = 2;
  sb.window = 192;
  sb.windowsClosed = 41;
  sb.unattributed = 7;
  sb.cells = {{kAllReduce, 16, 0, 3000, 2400123, 12, 0, 0.0, 0.0},
              {kAllReduce, 16, 1, 2990, 2400999, 10, 41, 12.345678901234567, 9.87654321e-3},
              {kAllReduce, 16, 2, 1500, 1200000, 30, 40, -0.1, 0.30000000000000004}};
  s.timings->switchback = sb;
  nlohmann::json e = nlohmann::json::parse(renderStatsEntry({3, false, 1772368496789, s}));
  EXPECT_EQ(e["design"], "switchback");
  EXPECT_TRUE(e["arm"].is_null());
  EXPECT_EQ(e["decisions"][0]["arm"], "candidate");
  EXPECT_EQ(e["timing"]["switchback"]["cells"][1]["arm"], "candidate");
  EXPECT_EQ(e["timing"]["switchback"]["cells"][1]["bucket"], "64K-128K");
  StatsFile file = readBack({{3, false, 1772368496789, s}});
  ASSERT_EQ(file.entries.size(), 1u);
  expectSameSnapshot(file.entries[0].comm, s);
}

// Schema /4: a switchback's turns per round and the collectives it captured into CUDA graphs, by turn of capture,
// read back as written.
TEST(StatsFile, CapturedTurnsReadBackAsWritten) {
  CommunicatorSnapshot s = abPodCommunicator();
  s.identity->arm.clear();
  s.identity->design = "switchback";
  SwitchbackTimings sb;
  sb.arms = {"control", "candidate"};
  sb.block = 2;
  sb.washout = 1;
  sb.window = 64;
  sb.turnsPerRound = 2;
  sb.capturesTracked = true;
  sb.captured = 4290;
  sb.capturedUntracked = 3;
  sb.turns = {{kAllReduce, 14, 16384, 4100, 0, 1, 301.25, 280, 84350, 1},
              {kAllReduce, 14, 16384, 4101, 1, 1, 305.5000000000001, 280, 85540, 1},
              {kAllReduce, 22, 4194304, 17, 1, 0, 0.0, 0, 0, 2}};
  s.timings->switchback = sb;
  nlohmann::json e = nlohmann::json::parse(renderStatsEntry({3, false, 1772368496789, s}));
  EXPECT_EQ(e["timing"]["switchback"]["turns_per_round"], 2);
  EXPECT_EQ(e["timing"]["switchback"]["capture"]["turns"][1]["arm"], "candidate");
  EXPECT_EQ(e["timing"]["switchback"]["capture"]["turns"][1]["bucket"], "16K-32K");
  StatsFile file = readBack({{3, false, 1772368496789, s}});
  ASSERT_EQ(file.entries.size(), 1u);
  expectSameSnapshot(file.entries[0].comm, s);
}

// What schema /3 wrote still reads: a switchback whose captures were not told from eager collectives.
TEST(StatsFile, ASchema3SwitchbackReadsAsOneWhoseCapturesWereNotToldApart) {
  const std::string text =
      R"({"schema": "nccl-roce.stats/3", "pid": 1, "host": "h", "communicators": [{"entry": 1, "state": "final",)"
      R"( "updated": "2026-03-01T12:34:56.789Z", "comm_id": "0x01", "timing": {"histogram": {"scheme": "log",)"
      R"( "relative_error": 0.01, "min_ns": 100, "bins": 1024}, "collectives": [], "switchback": {"arms":)"
      R"( ["control", "candidate"], "block": 16, "washout": 2, "window": 128, "windows": 3, "unattributed": 0,)"
      R"( "cells": []}}}]})";
  StatusOr<StatsFile> file = parseStatsFile(text, "old.json");
  ASSERT_TRUE(file.isOk()) << file.status().toString();
  const SwitchbackTimings& sb = *file->entries[0].comm.timings->switchback;
  EXPECT_FALSE(sb.capturesTracked);
  EXPECT_EQ(sb.turnsPerRound, 0u);
  EXPECT_TRUE(sb.turns.empty());
  EXPECT_EQ(sb.windowsClosed, 3u);
}

// A file cut short, hand-edited or of another version never feeds a verdict: the error names where and what.
TEST(StatsFile, ABadMemberIsAnErrorNamingIt) {
  auto entryWith = [](const std::string& member) {
    return R"({"schema": "nccl-roce.stats/3", "pid": 1, "host": "h", "communicators": [{"entry": 1, "state": "final",)"
           R"( "updated": "2026-03-01T12:34:56.789Z", "comm_id": "0x01")" +
           member + "}]}";
  };
  auto decision = [&](const std::string& fields) { return entryWith(R"(, "decisions": [{)" + fields + "}]"); };
  const std::string line = R"("collective": "AllReduce", "size_min": 1, "source": "nccl", "count": 1, )";
  const std::pair<std::string, const char*> cases[] = {
      {R"({"schema": "nccl-roce.stats/3", "pid": 1, "host": "h", "communicators": [{"entr)", "not valid JSON"},
      {R"({"schema": "nccl-roce.stats/9", "communicators": []})", "not a statistics file of schema"},
      {R"({"schema": "nccl-roce.stats/3", "communicators": []})", "no host and pid"},
      {entryWith(R"(, "state": "gone")"), "state is neither"},
      {entryWith(R"(, "n_ranks": -3)"), "n_ranks"},
      {decision(R"("size_min": 1, "channels": 0, "source": "nccl", "count": 1)"), "no collective"},
      {decision(R"("collective": "AllToAll", "size_min": 1, "channels": 0, "source": "nccl", "count": 1)"),
       "unknown collective 'AllToAll'"},
      {decision(R"("collective": "AllReduce", "channels": 0, "source": "nccl", "count": 1)"), "no size_min"},
      {decision(line + R"("algorithm": "Mesh", "channels": 0)"), "algorithm"},
      {decision(line + R"("protocol": 7, "channels": 0)"), "protocol"},
      {decision(line + R"("channels": 65)"), "channels"},
      {decision(line + R"("channels": 1, "chunk_size": -4)"), "chunk_size"},
      {decision(line + R"("channels": 1, "chunk_size": "x3")"), "chunk_size"},
      {decision(R"("collective": "AllReduce", "size_min": 1, "channels": 0, "source": "tuner", "count": 1)"),
       "source is not"},
      {entryWith(R"(, "calls": 5, "decisions": [])"), "calls is not what its decisions add up to"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.02, "bins": 1024}})"),
       "1% log scheme"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [{"collective": "AllReduce", "size_min": 1, "channels": 1,)"
                 R"( "timing_source": "cpu", "count": 1, "bins": [[3, 1]]}]})"),
       "timing_source"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [{"collective": "AllReduce", "size_min": 1, "channels": 1,)"
                 R"( "timing_source": "kernel_gpu", "count": 3, "bins": [[3, 1]]}]})"),
       "bins hold 1 collectives, count says 3"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [{"collective": "AllReduce", "size_min": 1, "channels": 1,)"
                 R"( "count": 1, "bins": [[3, 1]]}]})"),
       "no timing_source"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [], "switchback": {"arms": ["control"], "block": 16,)"
                 R"( "washout": 2, "window": 128, "windows": 0, "unattributed": 0, "cells": []}})"),
       "arms (two or more)"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [], "switchback": {"arms": ["a", "b"], "block": 16,)"
                 R"( "washout": 2, "window": 128, "windows": 1, "unattributed": 0, "cells": [{"collective":)"
                 R"( "AllReduce", "size_min": 65536, "arm": "c", "count": 1, "bin_sum": 3, "washed_out": 0,)"
                 R"( "windows": 1, "diff_sum": 0.5, "diff_sum_sq": 0.25}]}})"),
       "arm is not one of the switchback's arms"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [], "switchback": {"arms": ["a", "b"], "block": 2,)"
                 R"( "washout": 1, "window": 64, "turns_per_round": 0, "windows": 0, "unattributed": 0,)"
                 R"( "cells": []}})"),
       "turns_per_round"},
      {entryWith(R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
                 R"( "bins": 1024}, "collectives": [], "switchback": {"arms": ["a", "b"], "block": 2,)"
                 R"( "washout": 1, "window": 64, "windows": 0, "unattributed": 0, "cells": [],)"
                 R"( "capture": {"tracked": true, "captured": 5, "turns": []}}})"),
       "capture is not"},
      {entryWith(
           R"(, "timing": {"histogram": {"scheme": "log", "relative_error": 0.01, "min_ns": 100,)"
           R"( "bins": 1024}, "collectives": [], "switchback": {"arms": ["a", "b"], "block": 2,)"
           R"( "washout": 1, "window": 64, "windows": 0, "unattributed": 0, "cells": [],)"
           R"( "capture": {"tracked": true, "captured": 5, "untracked": 0, "turns": [{"collective":)"
           R"( "AllReduce", "size_min": 16384, "bytes": 16384, "turn": 3, "arm": "b", "positions": 2, "mean_bins": 600.5,)"
           R"( "count": 1, "bin_sum": 300, "washed_out": 0}]}}})"),
       "a replay at least per position"},
  };
  for (const auto& [text, what] : cases) {
    StatusOr<StatsFile> file = parseStatsFile(text, "pod-a/stats.1.json");
    ASSERT_FALSE(file.isOk()) << text;
    EXPECT_NE(file.status().message().find(what), std::string::npos) << file.status().message();
    EXPECT_EQ(file.status().message().rfind("pod-a/stats.1.json", 0), 0u) << file.status().message();
  }
}

}  // namespace
}  // namespace nccl_roce::telemetry

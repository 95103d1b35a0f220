// A switchback experiment through the built library, driven as NCCL drives it: two ranks of one communicator
// (two copies of the library, as two processes), each collective a tuner call and then the profiler's Group, Coll
// and kernel-channel events with GPU stamps; the statistics files read back with `nccl-roce ab --json`. Every
// decision agrees across the ranks, both arms run inside the one communicator, a slowdown of one arm is found
// from that single communicator through noise and load drift, and an A/A run gives no verdict. Through the newest
// tables (tuner v7, profiler v7: NCCL 2.32.6), whose events carry what v6's do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "plugin/nccl/profiler_v7.h"
#include "plugin/nccl/tuner_v7.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/run_command.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {

namespace {

constexpr uint64_t kCommId = 0x7a3e19c2d4b5f601ull;
constexpr int kAlgoRing = 1, kProtoLL = 0, kProtoLL128 = 1, kProtoSimple = 2;

// Two arms that decide differently for every all-reduce (so each timed collective says whose it was).
const char* kControl =
    "[policy]\nname = \"ll128\"\n[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
    "protocol = \"ll128\"\n";
const char* kCandidate =
    "[policy]\nname = \"ll\"\n[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\n"
    "protocol = \"ll\"\n";

// Arms that decide alike from 1 MiB up (Ring/Simple), and as kControl and kCandidate below.
std::string smallOnly(const std::string& policy) {
  std::string out = policy;
  out.insert(out.find("algorithm"), "size = \"..1M\"\n");
  return out + "[[rule]]\ncollective = \"allreduce\"\nsize = \"1M..\"\nalgorithm = \"ring\"\nprotocol = \"simple\"\n";
}

std::string experimentText(int block) {
  return "[experiment]\nname = \"decode-ll\"\ndesign = \"switchback\"\nblock = " + std::to_string(block) +
         "\n[[experiment.arm]]\nname = \"control\"\npolicy = \"control.toml\"\nweight = 50\n"
         "[[experiment.arm]]\nname = \"candidate\"\npolicy = \"candidate.toml\"\nweight = 50\n";
}

// One rank: its own copy of the library (its own process state), its tuner and profiler contexts.
struct Rank {
  Rank(const TempDir& dir, int rank) : lib(PluginLibrary::copy(dir.path(), "rank" + std::to_string(rank) + ".so")) {
    ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats/rank" + std::to_string(rank)));
    tuner = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
    profiler = lib.table<ncclProfiler_v7_t>("ncclProfiler_v7");
    int mask = 0;
    // NCCL's order: the profiler, then the tuner, on the thread that initialises the communicator.
    EXPECT_EQ(profiler->init(&profilerCtx, kCommId, &mask, "tp", 2, 2, rank, captureNcclLog), ncclSuccess);
    EXPECT_EQ(tuner->init(&tunerCtx, kCommId, 2, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  }
  ~Rank() {
    tuner->finalize(tunerCtx);  // the tuner first, as NCCL finalizes
    profiler->finalize(profilerCtx);
  }

  // What the tuner decides for an all-reduce of `bytes`: the (algorithm, protocol) it marks in NCCL's table.
  std::pair<int, int> decide(size_t bytes, int regBuff = 0) const {
    float table[7][3];
    for (int a = 0; a < 7; ++a) {
      for (int p = 0; p < 3; ++p) table[a][p] = 10.0f + static_cast<float>(a * 3 + p);  // NCCL would pick Tree/LL
    }
    int channels = 0;
    tuner->getCollInfo(tunerCtx, ncclFuncAllReduce, bytes, 1, reinterpret_cast<float**>(table), 7, 3, regBuff,
                       &channels);
    for (int a = 0; a < 7; ++a) {
      for (int p = 0; p < 3; ++p) {
        if (table[a][p] == 0.0f) return {a, p};
      }
    }
    return {-1, -1};
  }

  // The profiler's events for one collective of `bytes` that ran `algorithm` x `protocol` on two channels from
  // startNs for durationNs.
  void time(size_t bytes, int algorithm, int protocol, uint64_t startNs, uint64_t durationNs) const {
    static const char* const kAlgo[] = {"TREE", "RING"};
    static const char* const kProto[] = {"LL", "LL128", "SIMPLE"};
    ncclProfilerEventDescr_v7_t g{};
    g.type = ncclProfileGroup;
    void* group = nullptr;
    profiler->startEvent(profilerCtx, &group, &g);
    ncclProfilerEventDescr_v7_t c{};
    c.type = ncclProfileColl;
    c.coll.func = "AllReduce";
    c.coll.count = bytes / 2;
    c.coll.datatype = "ncclBfloat16";
    c.coll.algo = kAlgo[algorithm];
    c.coll.proto = kProto[protocol];
    c.coll.parentGroup = group;
    c.coll.nChannels = 2;
    void* coll = nullptr;
    profiler->startEvent(profilerCtx, &coll, &c);
    profiler->stopEvent(coll);
    profiler->stopEvent(group);
    for (int ch = 0; ch < 2; ++ch) {
      ncclProfilerEventDescr_v7_t k{};
      k.type = ncclProfileKernelCh;
      k.parentObj = coll;
      k.kernelCh.channelId = static_cast<uint8_t>(ch);
      k.kernelCh.pTimer = startNs;
      void* channel = nullptr;
      profiler->startEvent(profilerCtx, &channel, &k);
      ncclProfilerEventStateArgs_v7_t stop{};
      stop.kernelCh.pTimer = startNs + durationNs;
      profiler->recordEventState(channel, ncclProfilerKernelChStop, &stop);
      profiler->stopEvent(channel);
    }
  }

  PluginLibrary lib;
  const ncclTuner_v7_t* tuner = nullptr;
  const ncclProfiler_v7_t* profiler = nullptr;
  void* tunerCtx = nullptr;
  void* profilerCtx = nullptr;
};

struct Outcome {
  nlohmann::json report;                                    // `nccl-roce ab --json`
  std::vector<std::vector<std::pair<int, int>>> decisions;  // per rank, per call
  std::string abErr;                                        // what `ab` said on stderr
};

// A decode loop's all-reduces of three sizes, each timed by both ranks: durations drift by +-30% over the run
// (load), carry autocorrelated noise (10%) and rare stragglers (x3), and the candidate's (LL) take `slowdown`
// longer. The first collectives after a switch of protocol pay 20% more (carry-over).
Outcome run(double slowdown, int block, int collectives, uint64_t seed, int abExit = 0) {
  TempDir dir;
  dir.writeFile("control.toml", kControl);
  dir.writeFile("candidate.toml", kCandidate);
  std::string experiment = dir.writeFile("experiment.toml", experimentText(block));
  std::filesystem::create_directories(dir.join("stats"));
  ScopedEnv policy("NCCL_ROCE_POLICY", experiment);
  ScopedEnv interval("NCCL_ROCE_STATS_INTERVAL", "0");
  Outcome out;
  {
    std::vector<std::unique_ptr<Rank>> ranks;
    for (int r = 0; r < 2; ++r) ranks.push_back(std::make_unique<Rank>(dir, r));
    out.decisions.resize(2);
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal;
    double noise = 0;
    int lastProtocol = -1;
    uint64_t clock = 1'000'000'000ull;
    for (int i = 0; i < collectives; ++i) {
      size_t bytes = size_t{65536} << (i % 3 * 2);  // 64K, 256K, 1M
      std::vector<std::pair<int, int>> chosen;
      for (int r = 0; r < 2; ++r) {
        chosen.push_back(ranks[static_cast<size_t>(r)]->decide(bytes));
        out.decisions[static_cast<size_t>(r)].push_back(chosen.back());
      }
      double drift = 1 + 0.3 * std::sin(2 * M_PI * i / collectives * 3);
      noise = 0.6 * noise + 0.08 * normal(random);
      double straggler = random() % 500 == 0 ? 3.0 : 1.0;
      double carryOver = chosen[0].second != lastProtocol && lastProtocol >= 0 ? 1.2 : 1.0;
      lastProtocol = chosen[0].second;
      double arm = chosen[0].second == kProtoLL ? 1 + slowdown : 1.0;
      double us = (20 + 10.0 * static_cast<double>(i % 3)) * drift * std::exp(noise) * straggler * carryOver * arm;
      for (int r = 0; r < 2; ++r) {
        double rankNoise = std::exp(0.02 * normal(random));
        ranks[static_cast<size_t>(r)]->time(bytes, chosen[static_cast<size_t>(r)].first,
                                            chosen[static_cast<size_t>(r)].second, clock,
                                            static_cast<uint64_t>(us * rankNoise * 1000));
      }
      clock += 100'000;
    }
  }
  CommandResult ab =
      runCommand(cliPath() + " ab --json " + dir.join("report.json") + " " + dir.join("stats") + " > /dev/null");
  EXPECT_EQ(ab.exitCode, abExit) << ab.err;
  out.abErr = ab.err;
  CommandResult report = runCommand("cat " + dir.join("report.json"));
  out.report = nlohmann::json::parse(report.out, nullptr, /*allow_exceptions=*/false);
  if (std::getenv("NCCL_ROCE_TEST_SHOW")) std::printf("%s\n", out.report.dump(1).c_str());
  return out;
}

const nlohmann::json& comparison(const nlohmann::json& report) {
  static const nlohmann::json none;
  for (const nlohmann::json& c : report["comparisons"]) {
    if (c["arm"] == "candidate" && c["collective"] == "AllReduce") return c;
  }
  return none;
}

TEST(SwitchbackAbi, ASlowerArmIsFoundInsideOneCommunicatorThroughNoiseAndDrift) {
  Outcome o = run(0.08, 16, 24000, 2026);
  EXPECT_EQ(o.decisions[0], o.decisions[1]) << "every decision agrees across the ranks";
  std::set<std::pair<int, int>> both(o.decisions[0].begin(), o.decisions[0].end());
  EXPECT_EQ(both, (std::set<std::pair<int, int>>{{kAlgoRing, kProtoLL}, {kAlgoRing, kProtoLL128}}))
      << "both arms ran inside the one communicator";
  ASSERT_TRUE(o.report.is_object());
  EXPECT_EQ(o.report["design"], "switchback");
  EXPECT_EQ(o.report["communicators_per_arm"]["candidate"], 1);
  const nlohmann::json& c = comparison(o.report);
  ASSERT_TRUE(c.is_object()) << o.report.dump(1);
  ASSERT_EQ(c["buckets"].size(), 3u);
  int missed = 0;  // a 95% interval misses the truth once in 20: two of three missing happens once in 140 runs
  for (const nlohmann::json& b : c["buckets"]) {
    EXPECT_EQ(b["verdict"], "slower") << b.dump();
    missed += b["low"].get<double>() > 1.08 || b["high"].get<double>() < 1.08;
  }
  EXPECT_LE(missed, 1) << "the intervals hold the truth: " << c["buckets"].dump();
  EXPECT_EQ(c["summary"]["verdict"], "slower") << c["summary"].dump();
}

// vLLM's decode: all-reduces captured into CUDA graphs at start-up (one graph per batch size, each its own turns),
// then replayed thousands of times with prefills run eagerly between them. A captured collective runs its
// capture-time choice at every replay, and its time goes to the arm that decided that choice: every collective
// timed is counted for its arm (or washed out after a switch) exactly, and in the bucket where both arms decide
// the same (1 MiB and up: Ring/Simple in both) to neither, and the report names that bucket an A/A.
TEST(SwitchbackAbi, ReplayedGraphsRunAndAreTimedForTheArmThatDecidedAtCapture) {
  TempDir dir;
  dir.writeFile("control.toml", smallOnly(kControl));
  dir.writeFile("candidate.toml", smallOnly(kCandidate));
  ScopedEnv policy("NCCL_ROCE_POLICY", dir.writeFile("experiment.toml", experimentText(16)));
  ScopedEnv interval("NCCL_ROCE_STATS_INTERVAL", "0");
  std::filesystem::create_directories(dir.join("stats"));
  std::map<std::pair<size_t, int>, uint64_t> timed;  // (bytes, protocol) -> collectives timed
  {
    Rank rank(dir, 0);
    const std::vector<size_t> graphBytes = {size_t{16} << 10, size_t{64} << 10, size_t{2} << 20};
    std::vector<std::vector<std::pair<int, int>>> graphs;  // per graph, per captured all-reduce: its choice
    for (size_t bytes : graphBytes) {
      graphs.emplace_back();
      for (int i = 0; i < 64; ++i) graphs.back().push_back(rank.decide(bytes, /*regBuff=*/1));
    }
    std::mt19937_64 random(11);
    uint64_t clock = 1'000'000'000ull;
    auto time = [&](size_t bytes, std::pair<int, int> choice) {
      rank.time(bytes, choice.first, choice.second, clock, 20'000 + random() % 5'000);
      clock += 50'000;
      ++timed[{bytes, choice.second}];
    };
    for (int step = 0; step < 3000; ++step) {
      if (random() % 10 == 0) {  // a prefill: eager all-reduces, decided now
        for (int i = 0; i < 8; ++i) time(graphBytes[1], rank.decide(graphBytes[1]));
        continue;
      }
      const size_t g = random() % graphs.size();
      for (const std::pair<int, int>& choice : graphs[g]) time(graphBytes[g], choice);
    }
  }
  auto ran = [&](size_t bytes, int protocol) { return timed[{bytes, protocol}]; };
  // Read back: per (bucket, arm), timed + washed out = what ran with that arm's choice.
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(dir.join("stats"))) files.push_back(f.path());
  ASSERT_EQ(files.size(), 1u);
  CommandResult text = runCommand("cat " + files[0].string());
  nlohmann::json stats = nlohmann::json::parse(text.out);
  const nlohmann::json& sb = stats["communicators"][0]["timing"]["switchback"];
  ASSERT_TRUE(sb.is_object()) << stats.dump(1);
  std::map<std::pair<std::string, std::string>, uint64_t> counted;  // (bucket, arm)
  for (const nlohmann::json& cell : sb["cells"]) {
    counted[{cell["bucket"], cell["arm"]}] += cell["count"].get<uint64_t>() + cell["washed_out"].get<uint64_t>();
  }
  EXPECT_EQ(counted[std::make_pair(std::string("16K-32K"), std::string("control"))], ran(16384, kProtoLL128));
  EXPECT_EQ(counted[std::make_pair(std::string("16K-32K"), std::string("candidate"))], ran(16384, kProtoLL));
  EXPECT_EQ(counted[std::make_pair(std::string("64K-128K"), std::string("control"))], ran(65536, kProtoLL128));
  EXPECT_EQ(counted[std::make_pair(std::string("64K-128K"), std::string("candidate"))], ran(65536, kProtoLL));
  EXPECT_GT(ran(65536, kProtoLL), 1000u) << "both arms ran, replayed and eager";
  EXPECT_GT(ran(65536, kProtoLL128), 1000u);
  EXPECT_EQ(sb["unattributed"], ran(size_t{2} << 20, kProtoSimple)) << "both arms chose Ring/Simple there";

  CommandResult ab = runCommand(cliPath() + " ab --json " + dir.join("report.json") + " " + dir.join("stats"));
  ASSERT_EQ(ab.exitCode, 0) << ab.err;
  nlohmann::json report = nlohmann::json::parse(runCommand("cat " + dir.join("report.json")).out);
  const nlohmann::json& c = comparison(report);
  ASSERT_TRUE(c.is_object()) << report.dump(1);
  std::map<std::string, bool> alike;
  for (const nlohmann::json& b : c["buckets"]) alike[b["bucket"]] = b["decided_alike"];
  EXPECT_EQ(alike, (std::map<std::string, bool>{{"16K-32K", false}, {"64K-128K", false}, {"2M-4M", true}}))
      << report.dump(1);
}

// A switchback file that does not lint (here: no block) is an unusable policy at run time: one WARN naming the
// file and what to write, for the process, and NCCL decides every call.
TEST(SwitchbackAbi, AnExperimentWithoutABlockIsOneWarningAndNcclDecides) {
  TempDir dir;
  dir.writeFile("control.toml", kControl);
  dir.writeFile("candidate.toml", kCandidate);
  std::string text = experimentText(16);
  text.erase(text.find("block = 16\n"), std::string("block = 16\n").size());
  ScopedEnv policy("NCCL_ROCE_POLICY", dir.writeFile("experiment.toml", text));
  PluginLibrary lib = PluginLibrary::copy(dir.path(), "unusable.so");
  const auto* tuner = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
  ASSERT_NE(tuner, nullptr);
  clearCapturedNcclLog();
  std::vector<void*> contexts(4, nullptr);
  for (void*& context : contexts) {
    ASSERT_EQ(tuner->init(&context, kCommId, 2, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  }
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "unusable, NCCL decides instead"), 1u);
  EXPECT_EQ(countCapturedNcclLog(NCCL_LOG_WARN, "write block = 4"), 1u);
  for (void* context : contexts) {
    float table[7][3];
    for (auto& row : table) {
      for (float& cost : row) cost = 10.0f;
    }
    int channels = 0;
    ASSERT_EQ(
        tuner->getCollInfo(context, ncclFuncAllReduce, 65536, 1, reinterpret_cast<float**>(table), 7, 3, 0, &channels),
        ncclSuccess);
    for (auto& row : table) {
      for (float cost : row) EXPECT_EQ(cost, 10.0f) << "NCCL's table untouched";
    }
    EXPECT_EQ(channels, 0);
    tuner->finalize(context);
  }
}

TEST(SwitchbackAbi, AnAaRunGivesNoVerdict) {
  Outcome o = run(0.0, 16, 24000, 7);
  EXPECT_EQ(o.decisions[0], o.decisions[1]);
  const nlohmann::json& c = comparison(o.report);
  ASSERT_TRUE(c.is_object()) << o.report.dump(1);
  for (const nlohmann::json& b : c["buckets"]) EXPECT_EQ(b["verdict"], "no difference") << b.dump();
  EXPECT_EQ(c["summary"]["verdict"], "no difference") << c["summary"].dump();
}

// A gate run before the first window of a switchback closes compares nothing: exit 3 with the reason, never a
// pass (docs/ab-testing.md, "Exit status").
TEST(SwitchbackAbi, BeforeItsFirstWindowClosesASwitchbackIsNothingToCompare) {
  Outcome o = run(0.0, 16, 12, 3, /*abExit=*/3);
  EXPECT_THAT(o.abErr, ::testing::HasSubstr("nothing to compare: no size bucket was timed under both the control and "
                                            "another arm (a switchback whose windows have not closed yet"));
}

}  // namespace
}  // namespace nccl_roce::testing

// vLLM's CUDA-graph decode under a switchback, through the built library as NCCL 2.28+ drives it, two ranks (two
// copies of the library, as two processes), and `nccl-roce ab --json` on their statistics files:
// - start-up: a profile run's eager all-reduces, then one graph per batch size captured largest first (batch 1,
//   2, 4, 8..512 by 8; 64 all-reduces of batch x 16 KiB each): per captured all-reduce a CollApi event flagged
//   graphCaptured, then its one tuner call (regBuff 1 while capturing);
// - serving: decode steps replay one graph each, every replay's Group, Coll (whose parent is the capture's CollApi
//   handle) and kernel-channel events with GPU stamps; an eager prefill every ~20 steps asks the tuner per all-reduce.
// Durations drift, carry correlated noise and position effects the docs do not list among theirs (every third
// all-reduce slower, the last of a step slower, a trend over the step). Checked: every decision agrees across the
// ranks; judged by capture rounds an A/A calls a bucket no more often than 5% plus three binomial sigmas, and a
// 5% slower arm is found in most buckets from one communicator. NCCL_ROCE_CALIBRATION_RUNS sets the runs of each
// (4 unless set; docs/statistics.md shows the command with 40). Through the newest tables (tuner v7, profiler v7:
// NCCL 2.32.6), whose CollApi and Coll events carry what v5's and v6's do.
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
#include "tests/support/calibration_runs.h"
#include "tests/support/nccl_log_capture.h"
#include "tests/support/run_command.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {

namespace {

constexpr uint64_t kCommId = 0x3c5e0a91d7b24f68ull;
constexpr int kProtoLL = 0, kSteps = 5000, kPerGraph = 64;
constexpr size_t kBytesPerToken = 16 << 10;

const char* const kAlgo[] = {"TREE", "RING"};
const char* const kProto[] = {"LL", "LL128", "SIMPLE"};

int runs() {
  return calibrationRuns(4);
}

std::vector<size_t> captureSizes() {
  std::vector<size_t> sizes = {1, 2, 4};
  for (size_t b = 8; b <= 512; b += 8) sizes.push_back(b);
  return sizes;
}

// One rank: its own copy of the library, its tuner and profiler contexts.
struct Rank {
  Rank(const TempDir& dir, int rank, uint64_t commId)
      : lib(PluginLibrary::copy(dir.path(), "rank" + std::to_string(rank) + ".so")) {
    ScopedEnv stats("NCCL_ROCE_STATS", dir.join("stats/rank" + std::to_string(rank)));
    tuner = lib.table<ncclTuner_v7_t>("ncclTunerPlugin_v7");
    profiler = lib.table<ncclProfiler_v7_t>("ncclProfiler_v7");
    int mask = 0;
    EXPECT_EQ(profiler->init(&profilerCtx, commId, &mask, "tp", 2, 2, rank, captureNcclLog), ncclSuccess);
    EXPECT_EQ(tuner->init(&tunerCtx, commId, 2, 2, captureNcclLog, nullptr, nullptr), ncclSuccess);
  }
  ~Rank() {
    tuner->finalize(tunerCtx);
    profiler->finalize(profilerCtx);
  }

  // A collective called: its CollApi event (NCCL 2.28+ starts one whatever the profiler asks), then the tuner's
  // call for it; returns the CollApi handle and the choice the tuner marked.
  std::pair<void*, std::pair<int, int>> call(size_t bytes, bool captured) {
    void* handle = startApi(bytes, captured);
    return {handle, ask(bytes, captured)};
  }

  // The same collective as NCCL 2.31/2.32 treat one their symmetric kernels could run (ncclTuningCompute): a query
  // with every entry -1, which nothing can steer, then the ordinary call, then, where NCCL falls back from the LL
  // symmetric kernel, the ordinary call once more. Returns the handle and the choice that runs: the last call's.
  struct AskedTwice {
    void* handle;
    std::pair<int, int> first, ran;
  };
  AskedTwice callAskedTwice(size_t bytes, bool captured) {
    void* handle = startApi(bytes, captured);
    float table[7][3];
    for (auto& row : table) {
      for (float& cost : row) cost = -1.0f;
    }
    int channels = 0;
    tuner->getCollInfo(tunerCtx, ncclFuncAllReduce, bytes, 1, reinterpret_cast<float**>(table), 7, 3, 1, &channels);
    for (auto& row : table) {
      for (float cost : row) EXPECT_EQ(cost, -1.0f) << "nothing NCCL marked unavailable is chosen";
    }
    const std::pair<int, int> first = ask(bytes, captured);
    return {handle, first, ask(bytes, captured)};
  }

  void* startApi(size_t bytes, bool captured) const {
    ncclProfilerEventDescr_v7_t api{};
    api.type = ncclProfileCollApi;
    api.collApi.func = "AllReduce";
    api.collApi.count = bytes / 2;
    api.collApi.datatype = "ncclBfloat16";
    api.collApi.graphCaptured = captured;
    void* handle = nullptr;
    profiler->startEvent(profilerCtx, &handle, &api);
    if (handle != nullptr) profiler->stopEvent(handle);
    return handle;
  }

  // One ordinary tuner call: the choice it marked.
  std::pair<int, int> ask(size_t bytes, bool captured) const {
    float table[7][3];
    for (int a = 0; a < 7; ++a) {
      for (int p = 0; p < 3; ++p) table[a][p] = 10.0f + static_cast<float>(a * 3 + p);
    }
    int channels = 0;
    tuner->getCollInfo(tunerCtx, ncclFuncAllReduce, bytes, 1, reinterpret_cast<float**>(table), 7, 3, captured ? 1 : 0,
                       &channels);
    std::pair<int, int> chosen{-1, -1};
    for (int a = 0; a < 7; ++a) {
      for (int p = 0; p < 3; ++p) {
        if (table[a][p] == 0.0f) chosen = {a, p};
      }
    }
    return chosen;
  }

  // A kernel of one collective on two channels: the plan's Group and Coll events (the Coll's parent the CollApi
  // event, a capture's at every replay), then each channel's start and stop with GPU stamps.
  void run(size_t bytes, std::pair<int, int> choice, void* parent, uint64_t startNs, uint64_t durationNs) const {
    ncclProfilerEventDescr_v7_t g{};
    g.type = ncclProfileGroup;
    void* group = nullptr;
    profiler->startEvent(profilerCtx, &group, &g);
    ncclProfilerEventDescr_v7_t c{};
    c.type = ncclProfileColl;
    c.parentObj = parent;
    c.coll.func = "AllReduce";
    c.coll.count = bytes / 2;
    c.coll.datatype = "ncclBfloat16";
    c.coll.algo = kAlgo[choice.first];
    c.coll.proto = kProto[choice.second];
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

struct Captured {
  void* handle[2] = {nullptr, nullptr};  // per rank
  std::pair<int, int> choice;
};

// Position effects the docs do not list among theirs: every third all-reduce 6% slower, the last of a step 30%
// slower, and a 4% rise over the step.
double positionFactor(int p) {
  return (p % 3 == 2 ? 1.06 : 1.0) * (p == kPerGraph - 1 ? 1.3 : 1.0) * (1 + 0.04 * p / kPerGraph);
}

// A switchback of Ring/LL128 (the control) against Ring/LL (the candidate) for all-reduces, half the turns each,
// written into `dir` with its `design` lines (block, washout); returns the experiment's path.
std::string writeLlSwitchback(const TempDir& dir, const std::string& name, const std::string& design) {
  dir.writeFile("control.toml",
                "[policy]\nname = \"ll128\"\n[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = "
                "\"ll128\"\n");
  dir.writeFile("candidate.toml",
                "[policy]\nname = \"ll\"\n[[rule]]\ncollective = \"allreduce\"\nalgorithm = \"ring\"\nprotocol = "
                "\"ll\"\n");
  std::string experiment = "[experiment]\nname = \"" + name + "\"\ndesign = \"switchback\"\n";
  experiment += design;
  experiment +=
      "[[experiment.arm]]\nname = \"control\"\npolicy = \"control.toml\"\nweight = 50\n[[experiment.arm]]\nname = "
      "\"candidate\"\npolicy = \"candidate.toml\"\nweight = 50\n";
  return dir.writeFile("experiment.toml", experiment);
}

// One run: its `ab --json` report and whether every decision agreed across the ranks; with `plan`, also what
// `nccl-roce ab plan --stats` makes of its statistics files for a 5% effect.
nlohmann::json decode(double slowdown, uint64_t seed, bool* agreed, std::string* plan = nullptr) {
  TempDir dir;
  const std::string experiment = writeLlSwitchback(dir, "vllm-decode", "block = 4\n");
  std::filesystem::create_directories(dir.join("stats"));
  ScopedEnv policy("NCCL_ROCE_POLICY", experiment);
  ScopedEnv interval("NCCL_ROCE_STATS_INTERVAL", "0");
  *agreed = true;
  {
    std::vector<std::unique_ptr<Rank>> ranks;
    // Each run a vLLM instance of its own: a communicator whose id, and so whose draw of turns, is new.
    for (int r = 0; r < 2; ++r) ranks.push_back(std::make_unique<Rank>(dir, r, kCommId ^ seed * 0x9e3779b97f4a7c15ull));
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> uniform;
    uint64_t clock = 1'000'000'000ull;
    double noise = 0;
    // Both ranks call alike; their choices must agree.
    auto call = [&](size_t bytes, bool captured) {
      Captured c;
      for (int r = 0; r < 2; ++r) {
        auto [handle, choice] = ranks[static_cast<size_t>(r)]->call(bytes, captured);
        c.handle[r] = handle;
        if (r == 0) c.choice = choice;
        *agreed &= choice == c.choice;
      }
      return c;
    };
    auto time = [&](size_t bytes, const Captured& c, int position, double step) {
      noise = 0.7 * noise + 0.07 * normal(random);
      const double drift = 1 + 0.3 * std::sin(6 * M_PI * step / kSteps);
      const double us = (20 + static_cast<double>(bytes) / 50e3) * drift * std::exp(noise) * positionFactor(position) *
                        (c.choice.second == kProtoLL ? 1 + slowdown : 1.0);
      for (int r = 0; r < 2; ++r) {
        ranks[static_cast<size_t>(r)]->run(bytes, c.choice, c.handle[r], clock,
                                           static_cast<uint64_t>(us * std::exp(0.02 * normal(random)) * 1000));
      }
      clock += 200'000;
    };
    for (int p = 0; p < kPerGraph; ++p) time(4096 * kBytesPerToken, call(4096 * kBytesPerToken, false), p, 0);
    const std::vector<size_t> sizes = captureSizes();
    std::vector<std::vector<Captured>> graphs(sizes.size());
    for (size_t g = sizes.size(); g-- > 0;) {
      for (int p = 0; p < kPerGraph; ++p) graphs[g].push_back(call(sizes[g] * kBytesPerToken, true));
    }
    double walk = static_cast<double>(sizes.size()) / 2;
    for (int step = 0; step < kSteps; ++step) {
      if (uniform(random) < 0.05) {  // a prefill of 512-4095 tokens, eager
        const size_t bytes = static_cast<size_t>(512 + uniform(random) * 3584) * kBytesPerToken;
        for (int p = 0; p < kPerGraph; ++p) time(bytes, call(bytes, false), p, step);
        continue;
      }
      walk += 1.5 * normal(random);
      const double end = static_cast<double>(sizes.size());
      while (walk < 0 || walk >= end) walk = walk < 0 ? -walk : 2 * end - walk - 1e-9;
      const size_t g = std::min(static_cast<size_t>(walk), sizes.size() - 1);
      for (int p = 0; p < kPerGraph; ++p) time(sizes[g] * kBytesPerToken, graphs[g][static_cast<size_t>(p)], p, step);
    }
  }
  if (plan != nullptr) *plan = runCommand(cliPath() + " ab plan --stats " + dir.join("stats") + " --effect 5%").out;
  if (plan != nullptr && std::getenv("NCCL_ROCE_TEST_SHOW")) std::printf("%s\n", plan->c_str());
  CommandResult ab =
      runCommand(cliPath() + " ab --json " + dir.join("report.json") + " " + dir.join("stats") + " > /dev/null");
  EXPECT_EQ(ab.exitCode, 0) << ab.err;
  nlohmann::json report =
      nlohmann::json::parse(runCommand("cat " + dir.join("report.json")).out, nullptr, /*allow_exceptions=*/false);
  if (std::getenv("NCCL_ROCE_TEST_SHOW")) std::printf("%s\n", report.dump(1).c_str());
  return report;
}

const nlohmann::json& replays(const nlohmann::json& report) {
  static const nlohmann::json none;
  for (const nlohmann::json& c : report["comparisons"]) {
    if (c["arm"] == "candidate" && c.contains("traffic") && c["traffic"] == "graph") return c;
  }
  return none;
}

TEST(SwitchbackGraphsAbi, AnAaJudgedByCaptureRoundsCriesWolfNoMoreThanTheConfidenceAllows) {
  int buckets = 0, called = 0, summaries = 0, summariesCalled = 0;
  for (int run = 0; run < runs(); ++run) {
    bool agreed = false;
    nlohmann::json report = decode(0.0, 900 + static_cast<uint64_t>(run), &agreed);
    EXPECT_TRUE(agreed) << "every decision agrees across the ranks";
    const nlohmann::json& c = replays(report);
    ASSERT_TRUE(c.is_object()) << report.dump(1);
    EXPECT_EQ(c["unit"], "capture round");
    for (const nlohmann::json& b : c["buckets"]) {
      ++buckets;
      called += b["verdict"] == "faster" || b["verdict"] == "slower";
      EXPECT_GE(b["capture_rounds"].get<int>(), 6) << "block 4: 8 rounds in every graph of 64: " << b.dump();
      EXPECT_EQ(b["unpaired_collectives_control"], 0) << b.dump();
    }
    ++summaries;
    summariesCalled += c["summary"]["verdict"] == "faster" || c["summary"]["verdict"] == "slower";
  }
  std::printf("A/A: %d of %d buckets called, %d of %d summaries\n", called, buckets, summariesCalled, summaries);
  ASSERT_GE(buckets, 9 * runs()) << "10 buckets of graphs a run, a graph rarely left unreplayed";
  const double sigma = std::sqrt(0.05 * 0.95 / buckets);
  EXPECT_LE(static_cast<double>(called) / buckets, 0.05 + 3 * sigma);
  EXPECT_LE(static_cast<double>(summariesCalled) / summaries, 0.05 + 3 * std::sqrt(0.05 * 0.95 / summaries));
}

// NCCL 2.31/2.32 ask about a collective their symmetric kernels could run up to three times (docs/statistics.md,
// "What it assumes"): the query nothing can steer takes no turn's place, and a collective asked twice is filed under
// the turn of its first ordinary call, timed for the arm whose choice ran (the second call's). Turns of two calls,
// and the first capture asked once, so that every later capture's two calls straddle a turn's edge.
TEST(SwitchbackGraphsAbi, ACollectiveAskedTwiceIsFiledUnderItsFirstCallsTurnForTheArmThatRan) {
  TempDir dir;
  ScopedEnv policy("NCCL_ROCE_POLICY", writeLlSwitchback(dir, "twice", "block = 2\nwashout = 0\n"));
  ScopedEnv interval("NCCL_ROCE_STATS_INTERVAL", "0");
  std::filesystem::create_directories(dir.join("stats"));
  const size_t bytes = 8 * kBytesPerToken;
  auto armOf = [](std::pair<int, int> choice) { return choice.second == kProtoLL ? 1 : 0; };
  std::map<std::pair<uint64_t, int>, int> expected;  // (turn, arm that ran) -> captured collectives
  int changedArm = 0;                                // whose second call's turn gave the other arm
  {
    Rank rank(dir, 0, kCommId);
    std::vector<std::pair<void*, std::pair<int, int>>> captured = {rank.call(bytes, true)};  // call 0, turn 0
    expected[{0, armOf(captured[0].second)}] += 1;
    uint64_t calls = 1;  // ordinary tuner calls so far
    for (int i = 0; i < 40; ++i) {
      const Rank::AskedTwice c = rank.callAskedTwice(bytes, true);
      expected[{calls / 2, armOf(c.ran)}] += 1;
      changedArm += armOf(c.first) != armOf(c.ran);
      captured.emplace_back(c.handle, c.ran);
      calls += 2;
    }
    uint64_t clock = 1'000'000'000ull;
    for (int replay = 0; replay < 3; ++replay) {
      for (const auto& [handle, choice] : captured) {
        rank.run(bytes, choice, handle, clock, 20'000);
        clock += 100'000;
      }
    }
  }
  ASSERT_GT(changedArm, 0) << "some collective's two calls fell in turns of different arms";
  std::map<std::pair<uint64_t, int>, int> filed;
  for (const auto& file : std::filesystem::directory_iterator(dir.join("stats"))) {
    nlohmann::json stats =
        nlohmann::json::parse(runCommand("cat " + file.path().string()).out, nullptr, /*allow_exceptions=*/false);
    const nlohmann::json& switchback = stats["communicators"][0]["timing"]["switchback"];
    ASSERT_EQ(switchback["arms"], nlohmann::json({"control", "candidate"})) << stats.dump(1);
    for (const nlohmann::json& t : switchback["capture"]["turns"]) {
      filed[{t["turn"].get<uint64_t>(), t["arm"] == "candidate" ? 1 : 0}] += t["positions"].get<int>();
    }
  }
  EXPECT_EQ(filed, expected) << "(turn, arm) -> captured collectives";
}

// `ab plan --stats` on an A/A run's files: per bucket the chance of a verdict on 5% (its table's fourth column).
std::map<std::string, double> plannedPower(const std::string& plan) {
  std::map<std::string, double> out;
  for (size_t at = plan.find("\n| "); at != std::string::npos; at = plan.find("\n| ", at + 1)) {
    char bucket[32] = {0};
    double rounds = 0, power = 0;
    if (std::sscanf(plan.c_str() + at, "\n| %31s | %*s | %lf | %lf |", bucket, &rounds, &power) == 3)
      out[bucket] = power;
  }
  return out;
}

// Where `ab plan --stats` (on an A/A run's files, each new run a new capture) gives a verdict good odds, it comes in
// most single-communicator runs; where the plan gives even odds (a bucket of one graph whose last all-reduce, in
// one unit, dominates), about as often as it says. Both within 0.1 of the plan, give or take three binomial sigmas.
TEST(SwitchbackGraphsAbi, AFivePercentSlowerArmIsFoundFromOneCommunicatorWhereThePlanSays) {
  bool agreed = false;
  std::string plan;
  decode(0.0, 5000, &agreed, &plan);  // an A/A run's statistics: the spread its positions give its units
  std::map<std::string, double> planned = plannedPower(plan);
  ASSERT_GE(planned.size(), 9u) << plan;
  int likely = 0, likelyFound = 0, doubtful = 0, doubtfulFound = 0, wrongWay = 0;
  double likelyPlanned = 0, doubtfulPlanned = 0;
  for (int run = 0; run < runs(); ++run) {
    nlohmann::json report = decode(0.05, 1900 + static_cast<uint64_t>(run), &agreed);
    EXPECT_TRUE(agreed);
    const nlohmann::json& c = replays(report);
    ASSERT_TRUE(c.is_object()) << report.dump(1);
    for (const nlohmann::json& b : c["buckets"]) {
      const double p = planned[b["bucket"].get<std::string>()];
      const bool found = b["verdict"] == "slower";
      (p >= 0.8 ? likely : doubtful) += 1;
      (p >= 0.8 ? likelyFound : doubtfulFound) += found;
      (p >= 0.8 ? likelyPlanned : doubtfulPlanned) += p;
      wrongWay += b["verdict"] == "faster";
    }
  }
  std::printf("5%% slower: found in %d of %d buckets the plan gave %.2f, and %d of %d it gave %.2f\n", likelyFound,
              likely, likely ? likelyPlanned / likely : 0.0, doubtfulFound, doubtful,
              doubtful ? doubtfulPlanned / doubtful : 0.0);
  EXPECT_EQ(wrongWay, 0);
  ASSERT_GT(likely, 0) << plan;
  EXPECT_GE(likelyFound, likely * 8 / 10) << "in most single-communicator runs where the plan says it will be";
  auto tolerance = [](double p, int n) { return 0.1 + 3 * std::sqrt(std::max(p * (1 - p), 0.01) / n); };
  const double likelyRate = static_cast<double>(likelyFound) / likely;
  EXPECT_NEAR(likelyPlanned / likely, likelyRate, tolerance(likelyRate, likely)) << plan;
  if (doubtful > 0) {
    const double doubtfulRate = static_cast<double>(doubtfulFound) / doubtful;
    EXPECT_NEAR(doubtfulPlanned / doubtful, doubtfulRate, tolerance(doubtfulRate, doubtful)) << plan;
  }
}

}  // namespace
}  // namespace nccl_roce::testing

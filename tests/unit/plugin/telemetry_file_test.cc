// The per-process statistics file: a whole, valid document after every write; the tuner and the profiler of
// one communicator in one entry; live entries checkpointed with what their producers hold now and marked so;
// a final entry written when it is final; final entries past the cap moved to part files, never dropped from
// the files; the writer thread running only while an entry is live.
#include "plugin/telemetry_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/file.h"
#include "tests/support/capturing_logger.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using std::chrono::milliseconds;

nlohmann::json readDocument(const std::string& path) {
  auto text = readFileBounded(path, 1 << 24);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text.isOk() ? nlohmann::json::parse(*text) : nlohmann::json();
}

bool fileExists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

// The tuner's part of an entry that counted `n` calls, all in one cell.
TunerReport calls(int n) {
  TunerReport report;
  report.nRanks = 8;
  report.nNodes = 1;
  report.decisions = {
      {telemetry::cellKey(4, 65536, 1, 0, 0), telemetry::DecisionSource::kNccl, "", "", static_cast<uint64_t>(n)}};
  return report;
}

CommunicatorShape eightRanks() {
  return {8, 1};
}

// The tuner hands its last part over and is done with the entry.
Status finishTuner(TelemetryFiles& registry, const std::string& path, const TelemetryEntry& entry, int n) {
  entry.telemetry->finish(calls(n));
  return registry.finish(path, entry, Producer::kTuner);
}

Status finishProfiler(TelemetryFiles& registry, const std::string& path, const TelemetryEntry& entry) {
  entry.telemetry->finish(ProfilerReport{8, 1, 0, telemetry::Timings()});
  return registry.finish(path, entry, Producer::kProfiler);
}

TelemetryOptions onlyAtFinalize() {
  return TelemetryOptions{};
}

TelemetryOptions checkpointEvery(milliseconds interval) {
  TelemetryOptions options;
  options.interval = interval;
  return options;
}

// Polls `path` until `done(document)` or about five seconds (the writer runs on its own thread).
template <typename Done>
nlohmann::json waitFor(const std::string& path, Done done) {
  nlohmann::json doc;
  for (int i = 0; i < 500; ++i) {
    auto text = readFileBounded(path, 1 << 24);
    if (text.isOk()) {
      doc = nlohmann::json::parse(*text);
      if (done(doc)) return doc;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return doc;
}

// The one path the tuner and the profiler of a process both write to: NCCL_ROCE_STATS, then this process's pid.
TEST(StatisticsFile, ItsPathIsTheStatsPrefixAndThisProcesssPid) {
  EXPECT_FALSE(TelemetryFiles::statsPathOf(MapEnvironment()).has_value());
  EXPECT_FALSE(TelemetryFiles::statsPathOf(MapEnvironment(std::map<std::string, std::string>{{"NCCL_ROCE_STATS", ""}}))
                   .has_value());
  EXPECT_EQ(TelemetryFiles::statsPathOf(MapEnvironment(
                std::map<std::string, std::string>{{"NCCL_ROCE_STATS", "/var/lib/nccl-roce/vllm-0/stats"}})),
            "/var/lib/nccl-roce/vllm-0/stats." + std::to_string(::getpid()) + ".json");
}

// Readers tell entries apart by (host, pid, entry): a child forked after its parent wrote names its own pid.
TEST(StatisticsFile, AForkedChildNamesItsOwnPid) {
  testing::TempDir dir;
  {
    TelemetryFiles parent(onlyAtFinalize());
    std::string path = TelemetryFiles::pathFor(dir.join("stats"), ::getpid());
    ASSERT_TRUE(finishTuner(parent, path, parent.claim(path, 7, Producer::kTuner, eightRanks()), 1).isOk());
    EXPECT_EQ(readDocument(path)["pid"], ::getpid());
  }
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TelemetryFiles files(onlyAtFinalize());
    std::string path = TelemetryFiles::pathFor(dir.join("stats"), ::getpid());
    bool written = finishTuner(files, path, files.claim(path, 7, Producer::kTuner, eightRanks()), 1).isOk();
    auto text = readFileBounded(path, 1 << 20);
    bool own = text.isOk() && nlohmann::json::parse(*text)["pid"] == ::getpid();
    std::_Exit(written && own ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's statistics file names its parent's pid";
}

TEST(StatisticsFile, HoldsEveryFinalizedCommunicatorAfterEachFinalize) {
  testing::TempDir dir;
  std::string path = TelemetryFiles::pathFor(dir.join("stats"), 4242);
  EXPECT_EQ(path, dir.join("stats.4242.json"));
  TelemetryFiles registry(onlyAtFinalize());
  std::vector<TelemetryEntry> ranks;
  for (int i = 0; i < 3; ++i)
    ranks.push_back(registry.claim(path, 7, Producer::kTuner, eightRanks()));  // three local ranks of one id
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(finishTuner(registry, path, ranks[static_cast<size_t>(i)], i).isOk());
    nlohmann::json doc = readDocument(path);  // a whole, valid document after every finalize
    EXPECT_EQ(doc["schema"], "nccl-roce.stats/4");
    EXPECT_TRUE(doc["pid"].is_number());
    EXPECT_TRUE(doc["host"].is_string());
    ASSERT_EQ(doc["communicators"].size(), static_cast<size_t>(i + 1)) << "only final entries without checkpoints";
    const nlohmann::json& entry = doc["communicators"][static_cast<size_t>(i)];
    EXPECT_EQ(entry["calls"], i);
    EXPECT_EQ(entry["state"], "final");
    EXPECT_EQ(entry["comm_id"], "0x0000000000000007");
  }
  std::set<uint64_t> numbers;
  nlohmann::json doc = readDocument(path);
  for (const auto& entry : doc["communicators"]) numbers.insert(entry["entry"].get<uint64_t>());
  EXPECT_EQ(numbers.size(), 3u) << "each entry has its own number, which names it across checkpoints";
}

TEST(StatisticsFile, TheProfilerJoinsTheLiveEntryOfItsCommunicator) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  // NCCL 2.28 inits the profiler before the tuner, and finalizes the tuner first.
  TelemetryEntry timedA = registry.claim(path, 0x11, Producer::kProfiler, eightRanks());
  TelemetryEntry timedB = registry.claim(path, 0x22, Producer::kProfiler, eightRanks());
  TelemetryEntry a = registry.claim(path, 0x11, Producer::kTuner, eightRanks());
  TelemetryEntry b = registry.claim(path, 0x22, Producer::kTuner, eightRanks());
  EXPECT_EQ(a.number, timedA.number);
  EXPECT_EQ(b.number, timedB.number);
  EXPECT_EQ(a.telemetry, timedA.telemetry) << "one place where both producers meet";
  ASSERT_TRUE(finishTuner(registry, path, b, 5).isOk());
  EXPECT_FALSE(fileExists(path)) << "not final while its profiler is live";
  ASSERT_TRUE(finishProfiler(registry, path, timedB).isOk());
  nlohmann::json doc = readDocument(path);
  ASSERT_EQ(doc["communicators"].size(), 1u);
  EXPECT_EQ(doc["communicators"][0]["calls"], 5);
  EXPECT_TRUE(doc["communicators"][0].contains("timing")) << "one entry holds both producers' fields";
  // A later communicator with a finalized one's id gets an entry of its own.
  ASSERT_TRUE(finishTuner(registry, path, a, 1).isOk());
  ASSERT_TRUE(finishProfiler(registry, path, timedA).isOk());
  TelemetryEntry again = registry.claim(path, 0x22, Producer::kProfiler, eightRanks());
  EXPECT_NE(again.number, b.number);
  ASSERT_TRUE(finishProfiler(registry, path, again).isOk());
  EXPECT_EQ(readDocument(path)["communicators"].size(), 3u);
}

TEST(StatisticsFile, ACheckpointWritesEachLiveEntryAsItsProducersHoldItNowAndWhen) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryOptions options = checkpointEvery(std::chrono::hours(1));  // only the explicit checkpoints below
  auto clock = std::make_shared<std::chrono::system_clock::time_point>(std::chrono::milliseconds(1772368496789));
  options.clock = [clock] { return *clock; };
  TelemetryFiles registry(options);
  auto counted = std::make_shared<std::atomic<int>>(3);
  TelemetryEntry entry = registry.claim(path, 0x33, Producer::kTuner, eightRanks());
  entry.telemetry->attach(TunerNow([counted] { return calls(counted->load()); }));
  ASSERT_TRUE(registry.checkpoint().isOk());
  nlohmann::json doc = readDocument(path);
  ASSERT_EQ(doc["communicators"].size(), 1u);
  EXPECT_EQ(doc["communicators"][0]["state"], "live");
  EXPECT_EQ(doc["communicators"][0]["updated"], "2026-03-01T12:34:56.789Z");
  EXPECT_EQ(doc["communicators"][0]["calls"], 3);
  *counted = 8;
  *clock += std::chrono::seconds(60);
  ASSERT_TRUE(registry.checkpoint().isOk());
  doc = readDocument(path);
  EXPECT_EQ(doc["communicators"][0]["calls"], 8) << "cumulative, as of this checkpoint";
  EXPECT_EQ(doc["communicators"][0]["updated"], "2026-03-01T12:35:56.789Z");
  ASSERT_TRUE(finishTuner(registry, path, entry, 9).isOk());
  doc = readDocument(path);
  EXPECT_EQ(doc["communicators"][0]["state"], "final");
  EXPECT_EQ(doc["communicators"][0]["calls"], 9);
}

TEST(StatisticsFile, TheWriterCheckpointsWhileAnEntryLivesAndStopsAtTheLastFinalize) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(checkpointEvery(milliseconds(20)));
  auto counted = std::make_shared<std::atomic<int>>(1);
  TelemetryEntry entry = registry.claim(path, 0x44, Producer::kTuner, eightRanks());
  entry.telemetry->attach(TunerNow([counted] { return calls(counted->load()); }));
  *counted = 2;
  nlohmann::json doc = waitFor(path, [](const nlohmann::json& d) {
    return d["communicators"].size() == 1 && d["communicators"][0]["calls"] == 2;
  });
  EXPECT_EQ(doc["communicators"][0]["state"], "live");
  ASSERT_TRUE(finishTuner(registry, path, entry, 3).isOk());
  doc = readDocument(path);  // written by the finalizing thread: no waiting
  EXPECT_EQ(doc["communicators"][0]["state"], "final");
  EXPECT_EQ(doc["communicators"][0]["calls"], 3);
  EXPECT_EQ(registry.liveEntries(), 0u);
}

TEST(StatisticsFile, AFinalizeThatLeavesOthersLiveIsWrittenAtOnceNotAtTheNextInterval) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(checkpointEvery(std::chrono::hours(1)));
  TelemetryEntry serving = registry.claim(path, 0x55, Producer::kTuner, eightRanks());
  serving.telemetry->attach(TunerNow([] { return calls(100); }));
  TelemetryEntry weightSync = registry.claim(path, 0x66, Producer::kTuner, eightRanks());
  ASSERT_TRUE(finishTuner(registry, path, weightSync, 7).isOk());
  nlohmann::json doc = waitFor(path, [](const nlohmann::json& d) { return d["communicators"].size() == 2; });
  ASSERT_EQ(doc["communicators"].size(), 2u);
  EXPECT_EQ(doc["communicators"][0]["state"], "live");
  EXPECT_EQ(doc["communicators"][1]["state"], "final");
  EXPECT_EQ(doc["communicators"][1]["calls"], 7);
}

TEST(StatisticsFile, FinalEntriesPastTheCapMoveToPartFilesAndNeverLeaveTheFiles) {
  testing::TempDir dir;
  std::string path = dir.join("stats.9.json");
  TelemetryOptions options;
  options.finalsKept = 4;
  TelemetryFiles registry(options);
  TelemetryEntry serving = registry.claim(path, 0x1, Producer::kTuner, eightRanks());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(finishTuner(registry, path, registry.claim(path, 0x100 + i, Producer::kTuner, eightRanks()), i).isOk());
    EXPECT_LE(registry.entriesHeld(), 1u + 4u) << "the live entry and at most the cap of final ones";
  }
  EXPECT_EQ(TelemetryFiles::partPathFor(path, 2), dir.join("stats.9.final-2.json"));
  std::multiset<int> seen;
  for (const std::string& file : {path, TelemetryFiles::partPathFor(path, 1), TelemetryFiles::partPathFor(path, 2)}) {
    nlohmann::json doc = readDocument(file);
    for (const auto& entry : doc["communicators"]) seen.insert(entry["calls"].get<int>());
  }
  EXPECT_EQ(seen, (std::multiset<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << "each finalized communicator once";
  EXPECT_FALSE(fileExists(TelemetryFiles::partPathFor(path, 3)));
  ASSERT_TRUE(finishTuner(registry, path, serving, 0).isOk());
}

TEST(StatisticsFile, AnEntryNoProducerGaveAPartToIsDroppedUnwritten) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  TelemetryEntry failedInit = registry.claim(path, 0x77, Producer::kProfiler, eightRanks());
  failedInit.telemetry->attach(ProfilerNow([] { return ProfilerReport(); }));  // attached, then the init failed
  ASSERT_TRUE(registry.finish(path, failedInit, Producer::kProfiler).isOk());
  EXPECT_EQ(readDocument(path)["communicators"].size(), 0u);
  EXPECT_EQ(registry.entriesHeld(), 0u);
}

TEST(StatisticsFile, AnUnwritablePathIsAnErrorNotACrash) {
  testing::TempDir dir;
  TelemetryFiles registry(onlyAtFinalize());
  std::string path = dir.writeFile("a-file", "") + "/stats.1.json";  // no directory can be made there
  EXPECT_FALSE(finishTuner(registry, path, registry.claim(path, 1, Producer::kTuner, eightRanks()), 1).isOk());
}

// docs/kubernetes.md's NCCL_ROCE_STATS=/var/lib/nccl-roce/$(POD_NAME)/stats: the hostPath exists, the pod's
// directory in it does not at the pod's first start. It is made, 0755 whatever the umask, and made again if it
// goes while the process runs.
TEST(StatisticsFile, MakesTheDirectoryOfItsPrefix) {
  testing::TempDir dir;
  std::string path = TelemetryFiles::pathFor(dir.join("vllm-0/stats"), 4242);
  TelemetryFiles registry(onlyAtFinalize());
  mode_t umask = ::umask(077);
  Status first = finishTuner(registry, path, registry.claim(path, 1, Producer::kTuner, eightRanks()), 1);
  ::umask(umask);
  ASSERT_TRUE(first.isOk()) << first.toString();
  EXPECT_EQ(readDocument(path)["communicators"].size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(dir.join("vllm-0").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(std::system(("rm -r " + dir.join("vllm-0")).c_str()), 0);
  ASSERT_TRUE(finishTuner(registry, path, registry.claim(path, 2, Producer::kTuner, eightRanks()), 1).isOk());
  EXPECT_EQ(readDocument(path)["communicators"].size(), 2u);
}

// Another pod sharing the hostPath planted a link where the pod's directory is to be made: never followed.
TEST(StatisticsFile, RefusesALinkWhereItsDirectoryShouldBe) {
  testing::TempDir dir, elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), dir.join("vllm-0").c_str()), 0);
  std::string path = TelemetryFiles::pathFor(dir.join("vllm-0/stats"), 4242);
  TelemetryFiles registry(onlyAtFinalize());
  Status written = finishTuner(registry, path, registry.claim(path, 1, Producer::kTuner, eightRanks()), 1);
  EXPECT_EQ(written.message(),
            dir.join("vllm-0") + ": a symbolic link, not followed (docs/security.md); name the directory it points to");
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere.path()));
}

// A statistics directory that cannot be made is said at the first communicator's init, once per process however
// many communicators and threads meet it: one WARN naming the file and the reason, never one per finalize.
TEST(StatisticsFile, AnUnwritableDirectoryIsOneWarningAtTheFirstInit) {
  testing::TempDir dir, elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), dir.join("vllm-0").c_str()), 0);
  std::string path = TelemetryFiles::pathFor(dir.join("vllm-0/stats"), 4242);
  testing::CapturingLogger log;
  TelemetryOptions options = checkpointEvery(milliseconds(5));
  options.logger = &log;
  TelemetryFiles registry(options);
  TelemetryEntry first = registry.claim(path, 1, Producer::kTuner, eightRanks());
  ASSERT_EQ(log.count(LogLevel::kWarn), 1u) << "said at the claim, before any write";
  EXPECT_EQ(log.text(LogLevel::kWarn),
            "cannot write the statistics file " + path + ": " + dir.join("vllm-0") +
                ": a symbolic link, not followed (docs/security.md); name the directory it points to; later writes "
                "try again, and their failures are not repeated here (NCCL_ROCE_STATS, docs/security.md)");
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&registry, &path, t] {
      for (int i = 0; i < 20; ++i) {
        (void)finishTuner(registry, path, registry.claim(path, 100 + t, Producer::kTuner, eightRanks()), i);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(finishTuner(registry, path, first, 1).isOk());
  EXPECT_EQ(log.count(LogLevel::kWarn), 1u) << log.text(LogLevel::kWarn);
  EXPECT_GE(registry.writeFailures(), 2u) << "each failure counted";
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere.path()));
}

// A write that fails while communicators live (here: a directory made where the file goes) is said by the
// checkpoint that first fails, on the writer's thread, not when the communicator is destroyed (for vLLM: at
// shutdown).
TEST(StatisticsFile, ACheckpointThatFailsIsSaidWhenItFailsNotAtShutdown) {
  testing::TempDir dir;
  std::string path = TelemetryFiles::pathFor(dir.join("vllm-0/stats"), 4242);
  testing::CapturingLogger log;
  TelemetryOptions options = checkpointEvery(milliseconds(5));
  options.logger = &log;
  TelemetryFiles registry(options);
  TelemetryEntry live = registry.claim(path, 1, Producer::kTuner, eightRanks());
  live.telemetry->attach(TunerNow([] { return calls(3); }));
  waitFor(path, [](const nlohmann::json& doc) { return doc["communicators"].size() == 1; });
  EXPECT_EQ(log.count(LogLevel::kWarn), 0u);
  for (int i = 0; i < 1000; ++i) {  // the writer may put its file back between the two
    ::unlink(path.c_str());
    if (::mkdir(path.c_str(), 0755) == 0) break;
  }
  for (int i = 0; i < 500 && log.count(LogLevel::kWarn) == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(log.text(LogLevel::kWarn), "cannot write the statistics file " + path +
                                           ": Is a directory; later writes try again, and their failures are not "
                                           "repeated here (NCCL_ROCE_STATS, docs/security.md)");
  EXPECT_FALSE(finishTuner(registry, path, live, 3).isOk());
  EXPECT_EQ(log.count(LogLevel::kWarn), 1u);
}

// NCCL 2.27 gives the tuner no communicator id (tuner v4): both producers claim with id 0, and only the thread
// pairs them. NCCL initialises a communicator's profiler and then its tuner on the thread that initialises it, and
// several communicators at once on threads of their own (ncclCommInitAll, a group of inits).
TEST(StatisticsFile, IdZeroPairsEachProfilerWithTheTunerOfItsOwnThread) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  constexpr int kInits = 8;
  std::vector<TelemetryEntry> profilers(kInits), tuners(kInits);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kInits; ++i) {
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (ready.load() < kInits) std::this_thread::yield();  // all at once
      CommunicatorShape shape{8, 1};  // the same shape everywhere: only the thread can tell them apart
      profilers[static_cast<size_t>(i)] = registry.claim(path, 0, Producer::kProfiler, shape);
      std::this_thread::yield();
      tuners[static_cast<size_t>(i)] = registry.claim(path, 0, Producer::kTuner, shape);
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<uint64_t> numbers;
  for (int i = 0; i < kInits; ++i) {
    EXPECT_EQ(tuners[static_cast<size_t>(i)].number, profilers[static_cast<size_t>(i)].number) << "init " << i;
    numbers.insert(profilers[static_cast<size_t>(i)].number);
  }
  EXPECT_EQ(numbers.size(), static_cast<size_t>(kInits)) << "one entry per communicator";
}

TEST(StatisticsFile, IdZeroIsNeverPairedAcrossThreads) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  TelemetryEntry profiler = registry.claim(path, 0, Producer::kProfiler, eightRanks());
  TelemetryEntry tuner;
  std::thread([&] { tuner = registry.claim(path, 0, Producer::kTuner, eightRanks()); }).join();
  EXPECT_NE(tuner.number, profiler.number) << "id 0 says nothing about which communicator it is";
}

// Where the id is shared, a claim on another thread still finds its communicator's entry (the oldest it has not
// joined), but never one of another shape.
TEST(StatisticsFile, AnIdPairsAcrossThreadsWhereShapesAgree) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  TelemetryEntry profiler = registry.claim(path, 0x99, Producer::kProfiler, {16, 2});
  TelemetryEntry tuner, otherShape;
  std::thread([&] {
    otherShape = registry.claim(path, 0x99, Producer::kTuner, {8, 1});
    tuner = registry.claim(path, 0x99, Producer::kTuner, {16, 2});
  }).join();
  EXPECT_NE(otherShape.number, profiler.number);
  EXPECT_EQ(tuner.number, profiler.number);
}

// A thread that initialised a communicator whose tuner never claimed (no tuner loaded) goes on to the next: its
// tuner pairs with the latest profiler claim of the thread, not a stale one.
TEST(StatisticsFile, TheLatestClaimOfTheThreadIsTheOnePaired) {
  testing::TempDir dir;
  std::string path = dir.join("stats.1.json");
  TelemetryFiles registry(onlyAtFinalize());
  TelemetryEntry untuned = registry.claim(path, 0, Producer::kProfiler, eightRanks());
  TelemetryEntry profiler = registry.claim(path, 0, Producer::kProfiler, eightRanks());
  TelemetryEntry tuner = registry.claim(path, 0, Producer::kTuner, eightRanks());
  EXPECT_EQ(tuner.number, profiler.number);
  EXPECT_NE(tuner.number, untuned.number);
}

TelemetryOptions optionsFor(const std::string& interval) {
  return telemetryOptionsFrom(
      MapEnvironment(std::map<std::string, std::string>{{"NCCL_ROCE_STATS_INTERVAL", interval}}));
}

TEST(StatisticsInterval, SecondsWithDecimalsZeroTurnsCheckpointsOffAnythingElseIsTheDefault) {
  EXPECT_EQ(telemetryOptionsFrom(MapEnvironment()).interval, milliseconds(60000));
  EXPECT_EQ(telemetryOptionsFrom(MapEnvironment()).problem, "");
  EXPECT_EQ(optionsFor("300").interval, milliseconds(300000));
  EXPECT_EQ(optionsFor("0.25").interval, milliseconds(250));
  EXPECT_EQ(optionsFor("0").interval, milliseconds(0));
  for (const char* bad : {"", "-5", "1m", "abc", "1e3", "90000"}) {
    TelemetryOptions options = optionsFor(bad);
    EXPECT_EQ(options.interval, milliseconds(60000)) << bad;
    EXPECT_NE(options.problem.find(std::string("NCCL_ROCE_STATS_INTERVAL '") + bad + "'"), std::string::npos) << bad;
  }
  TelemetryOptions options;
  options.problem = "said once";
  TelemetryFiles registry(options);
  EXPECT_EQ(registry.takeProblem(), "said once");
  EXPECT_EQ(registry.takeProblem(), "");
}

}  // namespace
}  // namespace nccl_roce::plugin

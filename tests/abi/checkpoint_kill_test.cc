// Checkpoints as a serving pod meets them: a process timing all-reduces through the built library (the plain C
// driver, tests/abi/nccl_lifecycle.c) is killed with SIGKILL at 200 random moments. Whatever moment the kill
// hits, every file it leaves parses with the reader `nccl-roce ab` uses (never torn: written to a temporary file
// and renamed), never holds more than the process did, holds everything it had finished before the stamp of its
// checkpoint, and that stamp is at most one interval (plus the writer's scheduling) before the kill: the file
// misses at most the collectives of the last interval. Checkpoints every 50 ms keep it to seconds.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/file.h"
#include "fleet/telemetry_reader.h"
#include "tests/abi/lifecycle_progress.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace nccl_roce::testing {
namespace {

constexpr int kKills = 200;
constexpr int kAtOnce = 6;
constexpr int64_t kIntervalMs = 50;
// A checkpoint lands at most one interval after the last, plus the time to take and write it and to get a core
// on a busy machine (CI runs tests two at a time on two cores).
constexpr int64_t kSchedulingMs = 450;
constexpr int64_t kLatestKillMs = 600;  // kills land 0-600 ms after the communicator is created

int64_t realtimeMs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// The driver's progress file, mapped: how many all-reduces it had finished by each millisecond.
class Progress {
 public:
  explicit Progress(const std::string& path) {
    std::string zeros(sizeof(LifecycleProgress), '\0');
    EXPECT_TRUE(writeFileAtomically(path, zeros).isOk());
    int fd = ::open(path.c_str(), O_RDONLY);
    void* mapped = fd < 0 ? MAP_FAILED : ::mmap(nullptr, sizeof(LifecycleProgress), PROT_READ, MAP_SHARED, fd, 0);
    if (fd >= 0) ::close(fd);
    p_ = mapped == MAP_FAILED ? nullptr : static_cast<const LifecycleProgress*>(mapped);
  }
  ~Progress() {
    if (p_ != nullptr) ::munmap(const_cast<LifecycleProgress*>(p_), sizeof(LifecycleProgress));
  }
  bool mapped() const { return p_ != nullptr; }
  bool ready() const { return __atomic_load_n(&p_->ready, __ATOMIC_ACQUIRE) != 0; }
  int64_t startMs() const { return static_cast<int64_t>(p_->startMs); }
  // All-reduces finished before `ms` (wall clock).
  uint64_t finishedBefore(int64_t ms) const {
    uint64_t done = 0;
    int64_t last = std::min<int64_t>(ms - startMs() - 1, kLifecycleMaxMs - 1);
    for (int64_t slot = 0; slot <= last; ++slot) done = std::max<uint64_t>(done, p_->doneBy[slot]);
    return done;
  }

 private:
  const LifecycleProgress* p_ = nullptr;
};

struct Outcome {
  bool checked = false;
  int64_t lagMs = -1;  // kill time minus the stamp of the checkpoint left; -1: none was left
  std::vector<std::string> failures;
};

Outcome killOnce(int64_t delayMs) {
  Outcome out;
  auto fail = [&out](const std::string& why) { out.failures.push_back(why); };
  TempDir dir;
  Progress progress(dir.join("progress"));
  if (!progress.mapped()) {
    fail("cannot map the progress file");
    return out;
  }
  std::string driver = NCCL_ROCE_LIFECYCLE_DRIVER, pluginDir = NCCL_ROCE_PLUGIN_DIR,
              progressPath = dir.join("progress");
  std::vector<std::string> env{"NCCL_ROCE_STATS=" + dir.join("stats"), "NCCL_ROCE_STATS_INTERVAL=0.05"};
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("NCCL_", 0) != 0) env.push_back(*e);
  }
  std::vector<char*> envp,
      argv{driver.data(), pluginDir.data(), const_cast<char*>("run"), progressPath.data(), nullptr};
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t child = -1;
  if (::posix_spawn(&child, driver.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) {
    fail("cannot start " + driver);
    return out;
  }
  for (int i = 0; i < 5000 && !progress.ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
  int64_t killMs = realtimeMs();
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!progress.ready()) {
    fail("the driver never created its communicator");
    return out;
  }
  if (!WIFSIGNALED(status)) fail("the driver ended before the kill (status " + std::to_string(status) + ")");
  uint64_t killed = progress.finishedBefore(killMs + 1);

  std::string file = dir.join("stats." + std::to_string(child) + ".json");
  auto listing = listDirectory(dir.path(), 100);
  for (const std::string& name : listing.isOk() ? *listing : std::vector<std::string>()) {
    if (name == "progress" || isTemporaryFileOf(name, "stats.")) continue;  // a write the kill cut short
    if (dir.join(name) != file) fail("an unexpected file " + name);
  }
  auto records = fleet::readTelemetryFile(file);
  if (!records.isOk() && records.status().code() == StatusCode::kNotFound) {
    // Killed before the first checkpoint: only possible within the first interval.
    if (killMs - progress.startMs() > kIntervalMs + kSchedulingMs) {
      fail("no checkpoint " + std::to_string(killMs - progress.startMs()) + " ms after the communicator started");
    }
    out.checked = true;
    return out;
  }
  if (!records.isOk()) {
    fail("the file left does not parse: " + records.status().toString());
    return out;
  }
  if (records->size() != 1 || !(*records)[0].live || (*records)[0].commId != 0xc3) {
    fail("not one live entry of communicator 0xc3");
    return out;
  }
  const fleet::CommunicatorRecord& r = (*records)[0];
  uint64_t timed = r.zeroDurations, decided = 0;  // every clock's collectives, and those timed at zero
  for (const auto& [clock, cells] : r.timings) {
    for (const auto& [cell, timings] : cells) timed += timings.count;
  }
  for (const auto& [cell, counts] : r.decisions) {
    for (const auto& [decision, calls] : counts) decided += calls;
  }
  uint64_t before = progress.finishedBefore(r.updatedMs);
  // +1: the kill may land between an all-reduce's decision (or its KernelChStop) and the count that follows it.
  for (auto [what, n] : {std::pair{"timed", timed}, std::pair{"decided", decided}}) {
    if (n < before) {
      fail(std::string(what) + " " + std::to_string(n) + " in a checkpoint stamped when " + std::to_string(before) +
           " had finished");
    }
    if (n > killed + 1)
      fail(std::string(what) + " " + std::to_string(n) + ", more than the " + std::to_string(killed) + " run");
  }
  out.lagMs = killMs - r.updatedMs;
  if (out.lagMs > kIntervalMs + kSchedulingMs) {
    fail("the checkpoint left is " + std::to_string(out.lagMs) + " ms older than the kill");
  }
  out.checked = true;
  return out;
}

TEST(Checkpoints, AProcessKilledAtAnyMomentLeavesFilesThatParseAndMissAtMostTheLastInterval) {
  unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::vector<int64_t> delays(kKills);
  for (int64_t& d : delays) d = std::uniform_int_distribution<int64_t>(0, kLatestKillMs)(random);
  std::vector<Outcome> outcomes(kKills);
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kAtOnce; ++w) {
    workers.emplace_back([&] {
      for (int i = next++; i < kKills; i = next++)
        outcomes[static_cast<size_t>(i)] = killOnce(delays[static_cast<size_t>(i)]);
    });
  }
  for (std::thread& w : workers) w.join();
  int withCheckpoint = 0;
  int64_t worstLag = 0;
  std::vector<int64_t> lags;
  for (int i = 0; i < kKills; ++i) {
    const Outcome& o = outcomes[static_cast<size_t>(i)];
    EXPECT_TRUE(o.checked) << "kill " << i;
    for (const std::string& why : o.failures)
      ADD_FAILURE() << "kill " << i << " after " << delays[static_cast<size_t>(i)] << " ms: " << why;
    if (o.lagMs >= 0) ++withCheckpoint, lags.push_back(o.lagMs);
    worstLag = std::max(worstLag, o.lagMs);
  }
  EXPECT_GT(withCheckpoint, kKills / 2) << "most kills come after the first checkpoint";
  std::sort(lags.begin(), lags.end());
  std::printf(
      "%d kills, %d left a checkpoint, %lld ms before its kill at the median, %lld ms at worst (interval %lld ms)\n",
      kKills, withCheckpoint, static_cast<long long>(lags.empty() ? 0 : lags[lags.size() / 2]),
      static_cast<long long>(worstLag), static_cast<long long>(kIntervalMs));
}

}  // namespace
}  // namespace nccl_roce::testing

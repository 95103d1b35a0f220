// The textfile directory's stale-file sweep: node-exporter's directory, which every pod on the node shares and
// anything may write into. It removes only regular files with our names that nothing has rewritten for 15 minutes,
// never a link (nor what it points at), a directory, a FIFO or another program's file, and it does a bounded share
// of the directory per round, so a directory of 100,000 foreign files costs each round no more than its limits.
#include "plugin/textfile_sweep.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/file.h"
#include "plugin/textfile_identity.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using std::chrono::system_clock;

constexpr const char* kOwn = "nccl-roce.serving.vllm-5.1.777.prom";

// Sets the modification time of `path` itself (a link's own, not its target's) to 20 minutes ago.
void age(const std::string& path) {
  timespec times[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 20 * 60, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

struct Directory {
  explicit Directory(const char* base = nullptr) : dir(base) {
    fd = UniqueFd(::open(dir.path().c_str(), O_PATH | O_DIRECTORY));
  }
  TextfileSweep::Round sweep(TextfileSweep& sweep, const TextfileSweep::Limits& limits = {}) {
    return sweep.sweep(fd.get(), kOwn, system_clock::now(), kTextfileMaxAge, limits);
  }
  testing::TempDir dir;
  UniqueFd fd;
};

TEST(TextfileSweep, RemovesOnlyOurStaleRegularFiles) {
  Directory d;
  testing::TempDir outside;
  std::string victim = outside.writeFile("victim", "precious");
  std::string dead = d.dir.writeFile("nccl-roce.serving.vllm-3.1.4242.prom", "# EOF\n");
  std::string abandoned = d.dir.writeFile(".nccl-roce.serving.vllm-3.1.4242.prom.tmp-0123456789abcdef", "");
  std::string older = d.dir.writeFile("nccl-roce.serving.vllm-3.1.4242.prom.tmp.1", "");
  std::string recent = d.dir.writeFile("nccl-roce.serving.vllm-4.1.5151.prom", "# EOF\n");
  std::string own = d.dir.writeFile(kOwn, "# EOF\n");
  std::string foreign = d.dir.writeFile("gpu.prom", "# EOF\n");
  std::string link = d.dir.join("nccl-roce.planted.1.1.prom");
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  std::string directory = d.dir.join("nccl-roce.dir.1.1.prom");
  testing::makeDirectories(directory + "/inside");
  std::string fifo = d.dir.join("nccl-roce.fifo.1.1.prom");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& path : {dead, abandoned, older, own, foreign, link, directory, fifo}) age(path);

  TextfileSweep sweep;
  TextfileSweep::Round round = d.sweep(sweep);
  EXPECT_TRUE(round.passDone);
  EXPECT_EQ(round.removed, 3u);
  EXPECT_FALSE(exists(dead)) << "untouched for 20 minutes: its process is gone";
  EXPECT_FALSE(exists(abandoned));
  EXPECT_FALSE(exists(older)) << "a temporary file of a version before unpredictable names";
  EXPECT_TRUE(exists(recent)) << "another pod's live file";
  EXPECT_TRUE(exists(own)) << "the writer's own";
  EXPECT_TRUE(exists(foreign)) << "not ours: another textfile writer's";
  EXPECT_TRUE(exists(link)) << "a link is never ours, whatever its name";
  EXPECT_EQ(*readFileBounded(victim, 64), "precious");
  EXPECT_TRUE(exists(directory + "/inside"));
  EXPECT_TRUE(exists(fifo));
}

// Each round does at most its share and the next goes on where it stopped: every entry is seen once a pass.
TEST(TextfileSweep, EachRoundDoesABoundedShareAndTheNextGoesOn) {
  Directory d;
  std::vector<std::string> stale;
  for (int i = 0; i < 30; ++i) {
    d.dir.writeFile("foreign-" + std::to_string(i) + ".prom", "");
    stale.push_back(d.dir.writeFile("nccl-roce.pod-" + std::to_string(i) + ".1.1.prom", ""));
    age(stale.back());
  }
  TextfileSweep sweep;
  TextfileSweep::Limits limits;
  limits.entries = 7;
  limits.removals = 2;
  size_t examined = 0, removed = 0, rounds = 0;
  for (bool done = false; !done && rounds < 100; ++rounds) {
    TextfileSweep::Round round = d.sweep(sweep, limits);
    EXPECT_LE(round.examined, limits.entries);
    EXPECT_LE(round.removed, limits.removals);
    examined += round.examined;
    removed += round.removed;
    done = round.passDone;
  }
  EXPECT_EQ(removed, 30u);
  EXPECT_EQ(examined, 62u) << "60 files, '.' and '..': each once";
  for (const std::string& path : stale) EXPECT_FALSE(exists(path));
  EXPECT_EQ(d.sweep(sweep).removed, 0u) << "a new pass finds nothing left";
}

// node-exporter's directory flooded with 100,000 files of others (ten of ours among them, stale): rounds with the
// writer's limits (20,000 entries, 50 ms) each stay within them; a pass removes our ten and nothing else.
TEST(TextfileSweep, AHundredThousandForeignFilesCostEachRoundNoMoreThanItsLimits) {
  Directory d("/dev/shm");
  char name[64];
  for (int i = 0; i < 100000; ++i) {
    std::snprintf(name, sizeof(name), "foreign-%06d.prom", i);
    UniqueFd fd(::openat(d.fd.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd) << name;
    if (i % 10000 == 0) {
      std::snprintf(name, sizeof(name), "nccl-roce.pod-%d.1.1.prom", i);
      std::string ours = d.dir.writeFile(name, "");
      age(ours);
    }
  }
  TextfileSweep sweep;
  TextfileSweep::Limits limits;
  size_t rounds = 0, removed = 0;
  auto started = std::chrono::steady_clock::now();
  for (bool done = false; !done && rounds < 1000; ++rounds) {
    TextfileSweep::Round round = d.sweep(sweep, limits);
    EXPECT_LE(round.examined, limits.entries);
    removed += round.removed;
    done = round.passDone;
  }
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::printf("a pass over 100,010 entries: %zu rounds, %lld ms\n", rounds, static_cast<long long>(ms.count()));
  EXPECT_EQ(removed, 10u);
  EXPECT_GE(rounds, 6u) << "at most 20,000 entries a round";
  EXPECT_EQ(listDirectory(d.dir.path(), 200000)->size(), 100000u);
}

TEST(TextfileSweep, AMissingOrUnreadableDirectoryEndsTheRoundQuietly) {
  TextfileSweep sweep;
  TextfileSweep::Round round = sweep.sweep(-1, kOwn, system_clock::now(), kTextfileMaxAge, {});
  EXPECT_EQ(round.examined, 0u);
  EXPECT_FALSE(round.passDone);
}

}  // namespace
}  // namespace nccl_roce::plugin

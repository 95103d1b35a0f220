// The writers of the built library attacked as another pod sharing their directories could (docs/security.md): the
// statistics hostPath and node-exporter's textfile directory. The serving process is a child that loads the library
// and drives it as NCCL does (tuner and profiler tables, several communicators, dlclose and reopen); this process is
// the attacker: it reads the child's pid and start time from /proc, as anyone on the node can, plants links at
// every name the writers use or used (final, temporary, part files; symbolic and hard), a link where the per-pod
// directory is to be made, a directory where the textfile goes, and 100,000 files of its own in the textfile
// directory. Then: the victim files outside the directories are unchanged, the plugin's own files are written as
// regular files, each failure is one WARN naming the path, and nothing hangs (each child is killed past a deadline).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/file.h"
#include "plugin/nccl/profiler_v6.h"
#include "plugin/nccl/tuner_v6.h"
#include "tests/abi/plugin_library.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::testing {
namespace {

using std::chrono::seconds;

// ---- The serving process: the library driven as NCCL drives it.

FILE* gLog = nullptr;  // the child's NCCL log, read by the attacker once the child is done

void logToFile(ncclDebugLogLevel level, unsigned long, const char*, int, const char* fmt, ...) {
  if (gLog == nullptr || level != NCCL_LOG_WARN) return;
  va_list args;
  va_start(args, fmt);
  std::fputs("WARN ", gLog);
  std::vfprintf(gLog, fmt, args);
  std::fputc('\n', gLog);
  std::fflush(gLog);
  va_end(args);
}

// A communicator as NCCL holds it (NCCL 2.30's tables): profiler, then tuner at init; all-reduces with GPU stamps.
class Communicator {
 public:
  Communicator(const PluginLibrary& lib, uint64_t commId)
      : profiler_(lib.table<ncclProfiler_v6_t>("ncclProfiler_v6")),
        tuner_(lib.table<ncclTuner_v6_t>("ncclTunerPlugin_v6")) {
    int mask = 0;
    profiler_->init(&profilerContext_, commId, &mask, "serving", 2, 16, 3, logToFile);
    tuner_->init(&tunerContext_, commId, 16, 2, logToFile, nullptr, nullptr);
  }
  ~Communicator() {  // ncclCommDestroy: the tuner's finalize, then the profiler's
    tuner_->finalize(tunerContext_);
    profiler_->finalize(profilerContext_);
  }
  void allReduces(int n) {
    for (int i = 0; i < n; ++i) {
      std::vector<float> table(7 * 3, 1.0f);
      int channels = 0;
      tuner_->getCollInfo(tunerContext_, ncclFuncAllReduce, 65536, 1, reinterpret_cast<float**>(table.data()), 7, 3, 0,
                          &channels);
      ncclProfilerEventDescr_v6_t coll{}, channel{};
      coll.type = ncclProfileColl;
      coll.coll.func = "AllReduce";
      coll.coll.count = 16384;
      coll.coll.datatype = "ncclFloat32";
      coll.coll.algo = "RING";
      coll.coll.proto = "LL";
      coll.coll.nChannels = 1;
      void* collHandle = nullptr;
      profiler_->startEvent(profilerContext_, &collHandle, &coll);
      channel.type = ncclProfileKernelCh;
      channel.parentObj = collHandle;
      channel.kernelCh.pTimer = clock_;
      void* channelHandle = nullptr;
      profiler_->startEvent(profilerContext_, &channelHandle, &channel);
      ncclProfilerEventStateArgs_v6_t stop{};
      stop.kernelCh.pTimer = clock_ + 40000;
      profiler_->recordEventState(channelHandle, ncclProfilerKernelChStop, &stop);
      profiler_->stopEvent(channelHandle);
      profiler_->stopEvent(collHandle);
      clock_ += 100000;
    }
  }

 private:
  const ncclProfiler_v6_t* profiler_;
  const ncclTuner_v6_t* tuner_;
  void* profilerContext_ = nullptr;
  void* tunerContext_ = nullptr;
  uint64_t clock_ = 1000000000ull;
};

// A child process running `serve` with `env` set, once this process says go (so it can plant first, knowing the
// child's pid and start time); it says when `serve` is done, and exits when told (removing its textfile then).
class ServingProcess {
 public:
  ServingProcess(const std::map<std::string, std::string>& env, const std::string& logPath,
                 std::function<void()> serve) {
    if (::pipe(go_) != 0 || ::pipe(done_) != 0 || ::pipe(exit_) != 0) return;
    pid_ = ::fork();
    if (pid_ != 0) {
      ::close(go_[0]);
      ::close(done_[1]);
      ::close(exit_[0]);
      return;
    }
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    gLog = std::fopen(logPath.c_str(), "w");
    char byte = 0;
    if (::read(go_[0], &byte, 1) != 1) ::_exit(2);
    serve();
    if (::write(done_[1], "d", 1) != 1) ::_exit(2);
    if (::read(exit_[0], &byte, 1) != 1) ::_exit(2);
    std::exit(::testing::Test::HasFailure() ? 1 : 0);  // exit, not _exit: the textfile goes at exit
  }
  ~ServingProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  void go() { ASSERT_EQ(::write(go_[1], "g", 1), 1); }
  // False when `serve` did not end within `deadline`: a hang (the child is killed).
  bool done(seconds deadline) {
    pollfd p{done_[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(deadline.count() * 1000)) == 1) return true;
    ::kill(pid_, SIGKILL);
    return false;
  }
  int exitStatus() {
    if (::write(exit_[1], "x", 1) != 1) return -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int go_[2] = {-1, -1}, done_[2] = {-1, -1}, exit_[2] = {-1, -1};
  bool reaped_ = false;
};

// ---- The attacker.

// Field 22 of /proc/PID/stat (proc(5)): what names the textfile, readable by anyone on the node.
std::string startTicksOf(pid_t pid) {
  StatusOr<std::string> stat = readFileBounded("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat.isOk()) return "";
  std::string fields = stat->substr(stat->rfind(')') + 2);
  size_t at = 0;
  for (int field = 3; field < 22; ++field) at = fields.find(' ', at) + 1;
  return fields.substr(at, fields.find(' ', at) - at);
}

// What a file outside the shared directories is: its content, mode and modification time.
std::string fingerprint(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "(gone)";
  StatusOr<std::string> content = readFileBounded(path, 1 << 20);
  return (content.isOk() ? *content : content.status().toString()) + " mode " + std::to_string(st.st_mode) + " mtime " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

bool isRegular(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isLink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

void age(const std::string& path) {  // 20 minutes old: past the sweep's 15
  timespec times[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 20 * 60, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

std::vector<std::string> warnings(const std::string& logPath) {
  std::vector<std::string> out;
  StatusOr<std::string> log = readFileBounded(logPath, 1 << 20);
  size_t at = 0;
  while (log.isOk() && at < log->size()) {
    size_t end = log->find('\n', at);
    std::string line = log->substr(at, end - at);
    if (line.find("cannot write") != std::string::npos) out.push_back(line);
    at = end == std::string::npos ? log->size() : end + 1;
  }
  return out;
}

class SharedDirectoryAttack : public ::testing::Test {
 protected:
  SharedDirectoryAttack()
      : victim_(outside_.writeFile("serving.conf", "the serving container's own file\n")),
        env_({{"NCCL_ROCE_STATS", shared_.join("nccl-roce/vllm-0/stats")},
              {"NCCL_ROCE_METRICS", textfiles_.path()},
              {"NCCL_ROCE_STATS_INTERVAL", "0.05"},
              {"POD_NAMESPACE", "serving"},
              {"POD_NAME", "vllm-0"}}) {
    makeDirectories(shared_.join("nccl-roce"));  // the DirectoryOrCreate hostPath; the pod's directory is not there
  }

  TempDir shared_, outside_, logs_;
  TempDir textfiles_{"/dev/shm"};  // where 100,000 files are quick to make
  std::string victim_;
  std::map<std::string, std::string> env_;
};

TEST_F(SharedDirectoryAttack, LinksAtEveryNameTheWritersUseAreReplacedNeverWrittenThrough) {
  std::string log = logs_.join("nccl.log");
  ServingProcess serving(env_, log, [] {
    PluginLibrary lib;
    Communicator live(lib, 0x5e7);  // checkpointed every 50 ms on the writer thread while the others come and go
    live.allReduces(20);
    for (uint64_t id = 1; id <= 130; ++id) {  // 128 finalized communicators move to a part file
      Communicator weightSync(lib, 0x1000 + id);
      weightSync.allReduces(2);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  ASSERT_GT(serving.pid(), 0);
  const std::string pid = std::to_string(serving.pid()), start = startTicksOf(serving.pid());
  ASSERT_FALSE(start.empty());
  makeDirectories(shared_.join("nccl-roce/vllm-0"));  // another pod made it first: a directory, so used
  const std::string stats = shared_.join("nccl-roce/vllm-0/stats." + pid + ".json");
  const std::string part = shared_.join("nccl-roce/vllm-0/stats." + pid + ".final-1.json");
  const std::string textfile = textfiles_.join("nccl-roce.serving.vllm-0." + pid + "." + start + ".prom");
  // At each final name a symbolic link, at the part file's a hard link (where the file system lets one be made:
  // the same one, and fs.protected_hardlinks); symbolic links at the temporary names of earlier versions and at
  // guesses of the new ones.
  std::vector<std::string> planted;
  for (const std::string& final : {stats, part, textfile}) {
    auto [dir, name] = splitPath(final);
    bool hard = final == part && ::link(victim_.c_str(), final.c_str()) == 0;
    if (!hard) {
      ASSERT_EQ(::symlink(victim_.c_str(), final.c_str()), 0) << final;
    }
    for (const std::string& at :
         {final + ".tmp." + pid, dir + "/." + name + ".tmp-0000000000000000", dir + "/." + name + ".tmp-" + pid}) {
      ASSERT_EQ(::symlink(victim_.c_str(), at.c_str()), 0) << at;
      planted.push_back(at);
    }
  }
  const std::string before = fingerprint(victim_);
  serving.go();
  ASSERT_TRUE(serving.done(seconds(120))) << "hung";

  EXPECT_EQ(fingerprint(victim_), before) << "written through a planted link";
  for (const std::string& written : {stats, part, textfile}) {
    EXPECT_TRUE(isRegular(written)) << written << ": the planted link is replaced by the plugin's own file";
  }
  StatusOr<std::string> text = readFileBounded(stats, 1 << 24);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  EXPECT_NE(text->find("\"comm_id\": \"0x00000000000005e7\""), std::string::npos);
  StatusOr<std::string> metrics = readFileBounded(textfile, 1 << 24);
  ASSERT_TRUE(metrics.isOk());
  EXPECT_NE(metrics->find("comm_id=\"0x00000000000005e7\""), std::string::npos);
  for (const std::string& at : planted) EXPECT_TRUE(isLink(at)) << at << ": left as it was";
  EXPECT_EQ(warnings(log), std::vector<std::string>{}) << "every write succeeded";
  EXPECT_EQ(serving.exitStatus(), 0);
  EXPECT_FALSE(isRegular(textfile)) << "removed at exit";
  EXPECT_EQ(fingerprint(victim_), before);
}

// A link planted where the pod's directory is to be made, and a directory where the textfile goes: neither is
// followed nor replaced. Each is one WARN for the whole process, naming it, however many communicators, threads and
// reloads of the library meet it; the statistics one at the first communicator's init, not at its destruction.
TEST_F(SharedDirectoryAttack, APlantedLinkAndDirectoryAreOneWarningEachForTheProcess) {
  std::string log = logs_.join("nccl.log");
  makeDirectories(outside_.join("elsewhere"));
  ASSERT_EQ(::symlink(outside_.join("elsewhere").c_str(), shared_.join("nccl-roce/vllm-0").c_str()), 0);
  ServingProcess serving(env_, log, [&log] {
    std::vector<std::string> atInit;
    {
      PluginLibrary lib;
      Communicator first(lib, 0xa1);
      atInit = warnings(log);
      first.allReduces(5);
      std::vector<std::thread> threads;
      for (uint64_t t = 0; t < 4; ++t) {
        threads.emplace_back([&lib, t] {
          Communicator c(lib, 0xb0 + t);
          c.allReduces(5);
        });
      }
      for (std::thread& t : threads) t.join();
    }  // NCCL's dlclose after the last communicator
    PluginLibrary reopened;
    for (uint64_t id = 0xc1; id <= 0xc3; ++id) {
      Communicator c(reopened, id);
      c.allReduces(5);
    }
    EXPECT_EQ(atInit.size(), 1u) << "the statistics directory is said at the first init";
  });
  const std::string pid = std::to_string(serving.pid()), start = startTicksOf(serving.pid());
  const std::string textfile = textfiles_.join("nccl-roce.serving.vllm-0." + pid + "." + start + ".prom");
  std::string theirs = textfile + "/theirs";
  makeDirectories(theirs);
  serving.go();
  ASSERT_TRUE(serving.done(seconds(120))) << "hung";
  std::vector<std::string> said = warnings(log);
  ASSERT_EQ(said.size(), 2u) << ::testing::PrintToString(said);
  EXPECT_EQ(said[0], "WARN NCCL-RoCE: cannot write the statistics file " + shared_.join("nccl-roce/vllm-0/stats.") +
                         pid + ".json: " + shared_.join("nccl-roce/vllm-0") +
                         ": a symbolic link, not followed (docs/security.md); name the directory it points to; later "
                         "writes try again, and their failures are not repeated here (NCCL_ROCE_STATS, "
                         "docs/security.md)");
  EXPECT_EQ(said[1], "WARN NCCL-RoCE: cannot write the metrics textfile " + textfile +
                         ": Is a directory; later writes try again, and their failures are not repeated here "
                         "(NCCL_ROCE_METRICS, docs/security.md)");
  EXPECT_EQ(serving.exitStatus(), 0);
  EXPECT_TRUE(listDirectory(outside_.join("elsewhere"), 10)->empty()) << "nothing written through the link";
  EXPECT_TRUE(isLink(shared_.join("nccl-roce/vllm-0")));
  EXPECT_TRUE(listDirectory(theirs, 10)->empty());
  EXPECT_EQ(*readFileBounded(victim_, 1024), "the serving container's own file\n");
}

// node-exporter's directory flooded with 100,000 files of another program, and stale files under our names that are
// not regular files: NCCL's threads (init, collectives, the last finalize, which writes the textfile) do no sweep, so
// what the directory holds costs them nothing; no foreign file, link target, directory or FIFO is touched.
TEST_F(SharedDirectoryAttack, AHundredThousandForeignFilesDoNotStallNcclsThreads) {
  std::string log = logs_.join("nccl.log");
  UniqueFd dir(::open(textfiles_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  char name[64];
  for (int i = 0; i < 100000; ++i) {
    std::snprintf(name, sizeof(name), "node-%06d.prom", i);
    UniqueFd fd(::openat(dir.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd) << name;
  }
  const std::string staleOurs = textfiles_.writeFile("nccl-roce.serving.vllm-9.1.1.prom", "# EOF\n");
  const std::string link = textfiles_.join("nccl-roce.serving.vllm-8.1.1.prom");
  const std::string directory = textfiles_.join("nccl-roce.serving.vllm-7.1.1.prom");
  const std::string fifo = textfiles_.join("nccl-roce.serving.vllm-6.1.1.prom");
  ASSERT_EQ(::symlink(victim_.c_str(), link.c_str()), 0);
  makeDirectories(directory + "/inside");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& p : {staleOurs, link, directory, fifo}) age(p);
  const std::string before = fingerprint(victim_);
  ServingProcess serving(env_, log, [] {
    PluginLibrary lib;
    Communicator c(lib, 0xf100d);
    c.allReduces(20);
  });
  auto started = std::chrono::steady_clock::now();
  serving.go();
  ASSERT_TRUE(serving.done(seconds(60))) << "hung";
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::printf("a communicator's life beside 100,000 foreign files (init, 20 all-reduces, finalize): %lld ms\n",
              static_cast<long long>(ms.count()));
  const std::string pid = std::to_string(serving.pid()), start = startTicksOf(serving.pid());
  EXPECT_TRUE(isRegular(textfiles_.join("nccl-roce.serving.vllm-0." + pid + "." + start + ".prom")));
  EXPECT_EQ(serving.exitStatus(), 0);
  EXPECT_EQ(listDirectory(textfiles_.path(), 200000)->size(), 100004u) << "the process's own textfile went at exit";
  EXPECT_TRUE(isRegular(staleOurs)) << "no sweep on NCCL's threads: the writer thread's first round is 10 s away";
  EXPECT_TRUE(isLink(link));
  EXPECT_EQ(*listDirectory(directory, 10), std::vector<std::string>{"inside"});
  struct stat st {};
  EXPECT_TRUE(::lstat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
  EXPECT_EQ(fingerprint(victim_), before);
  EXPECT_EQ(warnings(log), std::vector<std::string>{});
}

}  // namespace
}  // namespace nccl_roce::testing

// NCCL_ROCE_METRICS: the textfile node-exporter reads appears in the directory, is rewritten while collectives
// run, keeps a finalized communicator's figures, and is never written without the variable.
#include "plugin/metrics_textfile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/file.h"
#include "plugin/textfile_identity.h"
#include "profiler/collective_tracker.h"
#include "tests/support/capturing_logger.h"
#include "tests/support/temp_dir.h"

namespace nccl_roce::plugin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// One communicator's telemetry: its tuner's identity, and a tracker with `n` all-reduces of 64 KiB on Ring/LL,
// 50 us each.
struct TrackedComm {
  explicit TrackedComm(uint64_t commId = 0x77) {
    tracker = std::make_shared<profiler::CollectiveTracker>(profiler::CollectiveTracker::Config{});
    timed = std::make_shared<CommunicatorTelemetry>(commId);
    timed->attach(TunerNow([] {
      TunerReport r{16, 2, {}, {}, {}};
      r.identity.arm = "candidate";
      r.identity.policy = "decode";
      return r;
    }));
    timed->attach(ProfilerNow([t = tracker] { return ProfilerReport{16, 2, 0, t->timings()}; }));
  }
  void run(int n) {
    for (int i = 0; i < n; ++i) {
      void* coll = tracker->startCollective({"AllReduce", "ncclInt8", "RING", "LL", 65536, 1, nullptr});
      void* ch = tracker->startChannel(coll, 0, 1000);
      tracker->stopChannel(ch, 51000);
    }
  }
  std::shared_ptr<profiler::CollectiveTracker> tracker;
  std::shared_ptr<CommunicatorTelemetry> timed;
};

std::string contents(const std::string& path) {
  auto text = readFileBounded(path, 1 << 20);
  return text.isOk() ? *text : std::string();
}

TEST(MetricsTextfile, IsRewrittenAtItsIntervalWhileCollectivesRun) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}});
  MetricsTextfile metrics(std::chrono::milliseconds(20));
  TrackedComm comm;
  metrics.add(comm.timed, env);
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(metrics.path(), dir.join("nccl-roce." + std::string(host) + "." + std::to_string(::getpid()) + "." +
                                     std::to_string(processStartTicks()) + ".prom"))
      << "no POD_NAME: the host name, which in a pod is the pod's name";
  comm.run(3);
  std::string count = "nccl_roce_collective_duration_seconds_count{";
  for (int wait = 0; wait < 500 && contents(metrics.path()).find("} 3\n") == std::string::npos; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(contents(metrics.path()), HasSubstr("arm=\"candidate\",policy=\"decode\""));
  comm.run(2);
  for (int wait = 0; wait < 500 && contents(metrics.path()).find("} 5\n") == std::string::npos; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(contents(metrics.path()), HasSubstr("} 5\n")) << "the writer keeps up with new collectives";
}

TEST(MetricsTextfile, AFinalizedCommunicatorKeepsItsFiguresSoCountersNeverGoBack) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}});
  MetricsTextfile metrics(std::chrono::hours(1));  // only explicit writes
  TrackedComm comm;
  metrics.add(comm.timed, env);
  comm.run(4);
  comm.timed->finish(ProfilerReport{16, 2, 0, comm.tracker->timings()});  // as the profiler finalizes
  metrics.finish(comm.timed);
  comm.run(1);  // after finalize: not in the file
  ASSERT_TRUE(metrics.writeNow().isOk());
  std::string text = contents(metrics.path());
  EXPECT_THAT(text, HasSubstr("comm_id=\"0x0000000000000077\""));
  EXPECT_THAT(text, HasSubstr("_count{"));
  EXPECT_THAT(text, HasSubstr("} 4\n"));
  EXPECT_THAT(text, Not(HasSubstr("} 5\n")));
}

// NCCL dlcloses the profiler after its last communicator: the writer must not outlive it.
TEST(MetricsTextfile, TheWriterRunsOnlyWhileACommunicatorLivesAndTheLastFinalizeWritesTheFile) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}});
  MetricsTextfile metrics(std::chrono::hours(1));  // the writer never reaches its interval here
  TrackedComm first(0x71), second(0x72);
  EXPECT_FALSE(metrics.writerRunning());
  metrics.add(first.timed, env);
  metrics.add(second.timed, env);
  EXPECT_TRUE(metrics.writerRunning());
  first.run(2);
  metrics.finish(first.timed);
  EXPECT_TRUE(metrics.writerRunning()) << "the second communicator still lives";
  second.run(3);
  metrics.finish(second.timed);
  EXPECT_FALSE(metrics.writerRunning()) << "stopped and joined by the last finalize";
  std::string text = contents(metrics.path());
  EXPECT_THAT(text, HasSubstr("comm_id=\"0x0000000000000071\""));
  EXPECT_THAT(text, HasSubstr("comm_id=\"0x0000000000000072\""));
  EXPECT_THAT(text, HasSubstr("} 3\n")) << "written by the last finalize, not left to a writer that is gone";
  TrackedComm third(0x73);
  metrics.add(third.timed, env);
  EXPECT_TRUE(metrics.writerRunning()) << "the next communicator (after NCCL reopens the library) starts it again";
  metrics.finish(third.timed);
}

// Two pods on one node: their processes may both be pid 1 in their own pid namespaces, so the pod's name (from the
// downward API) is in the file name and on every series.
TEST(MetricsTextfile, IsNamedAndLabelledByItsPod) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()},
                      {"POD_NAMESPACE", "serving"},
                      {"POD_NAME", "vllm-0-1"},
                      {"NODE_NAME", "gpu-node-7"}});
  MetricsTextfile metrics(std::chrono::hours(1));
  TrackedComm comm;
  metrics.add(comm.timed, env);
  comm.run(2);
  ASSERT_TRUE(metrics.writeNow().isOk());
  EXPECT_THAT(metrics.path(), HasSubstr("/nccl-roce.serving.vllm-0-1." + std::to_string(::getpid()) + "."));
  EXPECT_THAT(contents(metrics.path()), HasSubstr("{namespace=\"serving\",pod=\"vllm-0-1\",node=\"gpu-node-7\",pid=\"" +
                                                  std::to_string(::getpid()) + "\",experiment="));
  metrics.finish(comm.timed);
}

// A textfile directory that is not there yet (node-exporter not deployed yet, or a hostPath made by hand later)
// is made, 0755, so node-exporter can list it once it comes.
TEST(MetricsTextfile, MakesItsDirectory) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.join("node-exporter/textfile")}, {"POD_NAME", "vllm-0"}});
  MetricsTextfile metrics(std::chrono::hours(1));
  TrackedComm comm;
  metrics.add(comm.timed, env);
  comm.run(1);
  ASSERT_TRUE(metrics.writeNow().isOk());
  EXPECT_THAT(contents(metrics.path()), HasSubstr("nccl_roce_ab_log_duration"));
  struct stat st {};
  ASSERT_EQ(::stat(dir.join("node-exporter/textfile").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  metrics.finish(comm.timed);
}

// A directory planted where the textfile goes cannot be replaced: the writer thread's first write that fails says
// so, once per process, naming the file; the finalize's write does not say it again.
TEST(MetricsTextfile, AWriteThatFailsIsOneWarningWhenItFails) {
  testing::TempDir dir;
  testing::CapturingLogger log;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}, {"POD_NAME", "vllm-0"}});
  MetricsTextfile metrics(std::chrono::milliseconds(5), log);
  TrackedComm first, second;
  char host[256] = {0};
  ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
  std::string name = textfileIdentity(env, host, ::getpid(), processStartTicks()).fileName;  // as others can
  testing::makeDirectories(dir.join(name + "/planted"));
  metrics.add(first.timed, env);
  metrics.add(second.timed, env);
  ASSERT_EQ(metrics.path(), dir.join(name));
  for (int i = 0; i < 500 && log.count(LogLevel::kWarn) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(log.text(LogLevel::kWarn), "cannot write the metrics textfile " + metrics.path() +
                                           ": Is a directory; later writes try again, and their failures are not "
                                           "repeated here (NCCL_ROCE_METRICS, docs/security.md)");
  EXPECT_TRUE(metrics.writerRunning()) << "said while communicators live";
  metrics.finish(first.timed);
  metrics.finish(second.timed);
  EXPECT_FALSE(metrics.writeNow().isOk());
  EXPECT_EQ(log.count(LogLevel::kWarn), 1u);
  EXPECT_GE(metrics.writeFailures(), 2u);
}

// The failed writes the process counted reach the textfile: the statistics files' (counted by their writer) and the
// textfile's own earlier ones, once a write of it succeeds again.
TEST(MetricsTextfile, CarriesTheProcessesFailedWritesOfEachFile) {
  testing::TempDir dir;
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}, {"POD_NAME", "vllm-0"}});
  WriteFailures statistics("statistics file", "NCCL_ROCE_STATS", nullLogger());
  statistics.report(dir.join("stats/stats.1.json"), Status(StatusCode::kIoError, "No space left on device"));
  MetricsTextfile metrics(std::chrono::hours(1), nullLogger(), &statistics);
  TrackedComm comm;
  metrics.add(comm.timed, env);
  testing::makeDirectories(metrics.path() + "/planted");  // the next write fails
  EXPECT_FALSE(metrics.writeNow().isOk());
  ASSERT_EQ(::rmdir((metrics.path() + "/planted").c_str()), 0);
  ASSERT_EQ(::rmdir(metrics.path().c_str()), 0);
  ASSERT_TRUE(metrics.writeNow().isOk());
  std::string text = contents(metrics.path());
  EXPECT_THAT(text, HasSubstr(",file=\"statistics\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(",file=\"metrics\"} 1\n"));
  metrics.finish(comm.timed);
}

// What processes killed before their exit left behind is removed by the writer thread after its writes, and by
// nothing NCCL's threads run: a finalize only writes (the sweep's cost stays off NCCL's threads, whatever the
// directory holds).
TEST(MetricsTextfile, OnlyTheWriterThreadRemovesTheDirectorysStaleTextfiles) {
  testing::TempDir dir;
  std::string dead = dir.writeFile("nccl-roce.serving.vllm-3.1.4242.prom", "# EOF\n");
  std::string abandoned = dir.writeFile(".nccl-roce.serving.vllm-3.1.4242.prom.tmp-0123456789abcdef", "");
  std::string recent = dir.writeFile("nccl-roce.serving.vllm-4.1.5151.prom", "# EOF\n");
  std::string foreign = dir.writeFile("gpu.prom", "# EOF\n");
  for (const std::string& path : {dead, abandoned, foreign}) {
    ASSERT_EQ(::system(("touch -d '20 minutes ago' " + path).c_str()), 0);
  }
  MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}, {"POD_NAME", "vllm-5"}});
  {
    MetricsTextfile metrics(std::chrono::hours(1));
    TrackedComm comm;
    metrics.add(comm.timed, env);
    metrics.finish(comm.timed);  // the last finalize writes the file itself
    EXPECT_EQ(::access(metrics.path().c_str(), F_OK), 0);
    EXPECT_EQ(::access(dead.c_str(), F_OK), 0) << "swept on the finalizing thread";
  }
  MetricsTextfile metrics(std::chrono::milliseconds(10));
  TrackedComm comm;
  metrics.add(comm.timed, env);
  for (int i = 0; i < 500 && ::access(dead.c_str(), F_OK) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(::access(dead.c_str(), F_OK), 0) << "untouched for 20 minutes: its process is gone";
  EXPECT_NE(::access(abandoned.c_str(), F_OK), 0);
  EXPECT_EQ(::access(recent.c_str(), F_OK), 0) << "another pod's live file";
  EXPECT_EQ(::access(foreign.c_str(), F_OK), 0) << "not ours: another textfile writer's";
  EXPECT_EQ(::access(metrics.path().c_str(), F_OK), 0);
  metrics.finish(comm.timed);
}

// The process's own file goes when it exits; a child it forks exits without touching it.
TEST(MetricsTextfile, TheFileIsRemovedWhenItsProcessExits) {
  testing::TempDir dir;
  std::string path;
  pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    MapEnvironment env({{"NCCL_ROCE_METRICS", dir.path()}, {"POD_NAME", "vllm-0"}});
    static MetricsTextfile metrics(std::chrono::hours(1));
    static TrackedComm comm;
    metrics.add(comm.timed, env);
    comm.run(1);
    metrics.finish(comm.timed);
    bool written = ::access(metrics.path().c_str(), F_OK) == 0;
    pid_t child = ::fork();
    if (child == 0) std::exit(0);  // a forked worker's exit
    int status = 0;
    ::waitpid(child, &status, 0);
    bool kept = ::access(metrics.path().c_str(), F_OK) == 0;
    std::exit(written && kept ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: not written, or removed by the forked child's exit";
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "removed at exit";
}

TEST(MetricsTextfile, NothingIsWrittenWithoutTheVariable) {
  testing::TempDir dir;
  MapEnvironment env;
  MetricsTextfile metrics(std::chrono::milliseconds(1));
  TrackedComm comm;
  metrics.add(comm.timed, env);
  comm.run(1);
  EXPECT_TRUE(metrics.writeNow().isOk());
  EXPECT_EQ(metrics.path(), "");
}

}  // namespace
}  // namespace nccl_roce::plugin

#include "nccl-tests-integration/driver/rank_launcher.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace nccl_roce::driver {

std::string distinctHostId(const std::string& host, int rank) {
  return host + "-rank" + std::to_string(rank);
}

std::string shortHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

namespace {

int exitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

LaunchResult launchRanks(int nranks, bool distinctHostIds, const std::function<int(int rank)>& rankMain) {
  LaunchResult result;
  const std::string host = shortHostName();
  std::map<pid_t, int> running;  // pid -> rank
  std::fflush(nullptr);          // nothing buffered is printed twice
  for (int rank = 0; rank < nranks; ++rank) {
    pid_t pid = fork();
    if (pid == 0) {
      // NOLINTNEXTLINE(concurrency-mt-unsafe): in the forked child, its only thread, before NCCL starts
      if (distinctHostIds) setenv("NCCL_HOSTID", distinctHostId(host, rank).c_str(), 1);
      int code = rankMain(rank);
      std::fflush(nullptr);
      _exit(code);
    }
    if (pid < 0) {
      std::perror("nccl-roce-allreduce-driver: fork");
      result = {1, rank};
      break;
    }
    running[pid] = rank;
  }
  if (result.failedRank >= 0) {
    for (const auto& [pid, rank] : running) kill(pid, SIGTERM);
  }
  while (!running.empty()) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto found = running.find(pid);
    if (found == running.end()) continue;
    int rank = found->second;
    running.erase(found);
    int code = exitCodeOf(status);
    if (code != 0 && result.failedRank < 0) {
      result = {code, rank};
      for (const auto& [other, otherRank] : running) kill(other, SIGTERM);
    }
  }
  return result;
}

}  // namespace nccl_roce::driver

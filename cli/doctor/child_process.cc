#include "cli/doctor/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/file.h"

namespace nccl_roce::doctor {

namespace {

constexpr size_t kMaxOutput = size_t{64} * 1024;
using Clock = std::chrono::steady_clock;

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reads what is ready on `fd` into `into` (kept to kMaxOutput); false once the child closed it.
bool drain(int fd, std::string& into) {
  char buffer[4096];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  into.append(buffer,
              static_cast<size_t>(std::min(static_cast<size_t>(n), kMaxOutput - std::min(kMaxOutput, into.size()))));
  return true;
}

// Collects stdout and stderr until both close or the deadline passes; true when they closed in time.
bool collect(int outFd, int errFd, Clock::time_point deadline, ChildOutput& result) {
  struct pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd >= 0 && fds[i].revents != 0 && !drain(fds[i].fd, i == 0 ? result.out : result.err)) fds[i].fd = -1;
    }
  }
  return true;
}

// Waits for the child to exit until the deadline (it may close its output and go on), then kills its group.
int reap(pid_t pid, Clock::time_point deadline, ChildOutput& result) {
  int status = 0;
  while (!result.timedOut) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return status;
    if (Clock::now() >= deadline) {
      result.timedOut = true;
    } else {
      ::usleep(1000);
    }
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

ChildOutput runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& environment, int timeoutMs) {
  ChildOutput result;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.error = errnoText(errno);
    return result;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    result.error = errnoText(errno);
    ::close(out[0]);
    ::close(out[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // Its own process group, so the deadline kills whatever it started too.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envp = environment;
  pid_t pid = -1;
  int spawned =
      ::posix_spawn(&pid, program.c_str(), &actions, &attributes, pointers(argv).data(), pointers(envp).data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out[1]);
  ::close(err[1]);
  if (spawned != 0) {
    result.error = errnoText(spawned);
    ::close(out[0]);
    ::close(err[0]);
    return result;
  }
  result.started = true;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  result.timedOut = !collect(out[0], err[0], deadline, result);
  ::close(out[0]);
  ::close(err[0]);
  int status = reap(pid, deadline, result);
  if (!result.timedOut && WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  return result;
}

}  // namespace nccl_roce::doctor

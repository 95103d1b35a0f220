#include "plugin/textfile_sweep.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/textfile_identity.h"

namespace nccl_roce::plugin {

void TextfileSweep::close() {
  if (stream_ != nullptr) ::closedir(stream_);
  stream_ = nullptr;
}

TextfileSweep::Round TextfileSweep::sweep(int dirFd, const std::string& own, std::chrono::system_clock::time_point now,
                                          std::chrono::seconds maxAge, const Limits& limits) {
  Round round;
  struct stat dir {};
  if (::fstat(dirFd, &dir) != 0) return round;
  if (stream_ != nullptr && (dir.st_dev != device_ || dir.st_ino != inode_)) close();
  if (stream_ == nullptr) {
    int fd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    stream_ = fd < 0 ? nullptr : ::fdopendir(fd);
    if (stream_ == nullptr) {
      if (fd >= 0) ::close(fd);
      return round;
    }
    device_ = dir.st_dev;
    inode_ = dir.st_ino;
  }
  const int fd = ::dirfd(stream_);
  const time_t oldest = std::chrono::system_clock::to_time_t(now - maxAge);
  const auto deadline = std::chrono::steady_clock::now() + limits.time;
  size_t sinceClock = 0;  // system calls since the clock was last read
  while (round.examined < limits.entries && round.removed < limits.removals) {
    // The clock is read every 256 entries (a getdents batch holds about that many) and after every file looked at.
    if (++sinceClock >= 256) {
      sinceClock = 0;
      if (std::chrono::steady_clock::now() >= deadline) break;
    }
    // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc's readdir is safe on a stream no other thread reads, as this one
    dirent* e = ::readdir(stream_);
    if (e == nullptr) {
      close();
      round.passDone = true;
      break;
    }
    ++round.examined;
    // The name first, from the directory entry alone: a foreign file costs no system call of its own.
    if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
    const std::string name = e->d_name;
    if (name == own || !isOurTextfile(name)) continue;
    sinceClock = 256;
    struct stat st {};
    if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_mtime >= oldest) {
      continue;
    }
    // Swapped for something else since the lstat? unlinkat never follows a link and refuses a directory; whatever
    // else it removes bears our name.
    round.removed += ::unlinkat(fd, e->d_name, 0) == 0;
  }
  return round;
}

}  // namespace nccl_roce::plugin

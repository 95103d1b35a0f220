#include "common/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>

namespace nccl_roce {

namespace {
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};
struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
}  // namespace

Status statusFromErrno(int err, const std::string& what) {
  std::string message = what + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status(StatusCode::kNotFound, message);
    case EINVAL:
    case ENODATA:
    case EOPNOTSUPP:
      return Status(StatusCode::kInvalidArgument, message);
    case EACCES:
    case EPERM:
      return Status(StatusCode::kPermissionDenied, message);
    default:
      return Status(StatusCode::kIoError, message);
  }
}

StatusOr<std::string> readFileBounded(const std::string& path, size_t maxBytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return statusFromErrno(errno, path);
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return statusFromErrno(errno, path);
  if (!S_ISREG(st.st_mode)) return Status(StatusCode::kInvalidArgument, path + ": not a regular file");

  // The buffer follows the file, not the bound: a 4 KiB sysfs attribute must not cost a 256 MiB allocation.
  // st_size is only a hint (sysfs reports 4096 whatever the content, /proc reports 0), so the buffer grows,
  // doubling, up to the bound + 1: the byte that tells "too large" from "exactly at the bound". Reads go on
  // until end of file, since /proc hands its files over in pieces.
  const size_t limit = maxBytes + 1;
  size_t expected = st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 0;
  std::string content(std::min(limit, std::max<size_t>(expected, 4096)), '\0');
  size_t filled = 0;
  while (true) {
    if (filled == content.size()) {
      if (content.size() == limit) break;
      content.resize(std::min(limit, content.size() * 2));
    }
    ssize_t n = ::read(fd, &content[filled], content.size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      return statusFromErrno(errno, path);
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  if (filled > maxBytes) {
    return Status(StatusCode::kTooLarge, path + ": more than " + std::to_string(maxBytes) + " bytes");
  }
  content.resize(filled);
  return content;
}

StatusOr<std::vector<std::string>> listDirectory(const std::string& path, size_t maxEntries) {
  std::unique_ptr<DIR, DirCloser> dir(::opendir(path.c_str()));
  if (!dir) return statusFromErrno(errno, path);
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    struct dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) {
      if (errno != 0) return statusFromErrno(errno, path);
      break;
    }
    if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
    if (names.size() >= maxEntries) {
      return Status(StatusCode::kTooLarge, path + ": more than " + std::to_string(maxEntries) + " entries");
    }
    names.emplace_back(entry->d_name);
  }
  return names;
}

Status writeFileAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return statusFromErrno(errno, path);  // the file asked for, not our temporary name
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return statusFromErrno(err, path);
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return statusFromErrno(err, path);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return statusFromErrno(err, path);
  }
  return Status::ok();
}

}  // namespace nccl_roce

#include "common/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

  // One read of up to maxBytes+1: a regular file returns less than asked only at its end, and sysfs hands an
  // attribute over in a single read (it reports st_size 4096 whatever the content, so st_size is no guide).
  std::string content(maxBytes + 1, '\0');
  size_t filled = 0;
  while (filled < content.size()) {
    ssize_t n = ::read(fd, &content[filled], content.size() - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      return statusFromErrno(errno, path);
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
    if (filled < content.size() && filled >= 1) break;  // short read: end of file
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
  if (fd < 0) return statusFromErrno(errno, tmp);
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return statusFromErrno(err, tmp);
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return statusFromErrno(err, tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return statusFromErrno(err, path);
  }
  return Status::ok();
}

}  // namespace nccl_roce

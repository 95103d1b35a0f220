#include "common/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/strings.h"

namespace nccl_roce {

namespace {
struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

constexpr int kTemporaryNameTries = 16;
constexpr size_t kTemporaryStemBytes = 200;  // NAME_MAX is 255: room for ".", ".tmp-" and 16 digits
constexpr const char* kTemporaryMark = ".tmp-";

// 64 bits nobody outside the process can predict. Should the kernel not answer (a seccomp filter, an old kernel),
// the clock, the pid and a counter stand in: then a name might be guessed, which costs a retry at worst, as the
// file is still created with O_EXCL and never through a link.
uint64_t unpredictable() {
  uint64_t value = 0;
  if (::getrandom(&value, sizeof(value), GRND_NONBLOCK) == static_cast<ssize_t>(sizeof(value))) return value;
  static std::atomic<uint64_t> counter{0};
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  value = static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
  value ^= static_cast<uint64_t>(::getpid()) << 40;
  value ^= (counter.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9e3779b97f4a7c15ull;
  return value;
}

std::string temporaryName(const std::string& name) {
  char digits[17];
  std::snprintf(digits, sizeof(digits), "%016llx", static_cast<unsigned long long>(unpredictable()));
  return "." + name.substr(0, kTemporaryStemBytes) + kTemporaryMark + digits;
}

Status writeAll(int fd, const std::string& content, mode_t mode, const std::string& shown) {
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return statusFromErrno(errno, shown);
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0) return statusFromErrno(errno, shown);
  return Status::ok();
}

// Puts the temporary file at `name`, or removes it.
Status renameInto(int dirFd, const std::string& temporary, const std::string& name, const std::string& shown) {
  if (::renameat(dirFd, temporary.c_str(), dirFd, name.c_str()) == 0) return Status::ok();
  int err = errno;
  ::unlinkat(dirFd, temporary.c_str(), 0);
  return statusFromErrno(err, shown);
}

// O_TMPFILE is refused by file systems without it (EOPNOTSUPP) and by kernels before 3.11 (EISDIR, EINVAL).
bool noAnonymousFiles(int err) {
  return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}
}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

std::string errnoText(int err) {
  char buffer[128];
  // GNU's strerror_r (C++ compiles with _GNU_SOURCE): returns the text, in buffer or a static string.
  return ::strerror_r(err, buffer, sizeof buffer);
}

Status statusFromErrno(int err, const std::string& what) {
  std::string message = what + ": " + errnoText(err);
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

const char* notRegularBecause(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO, not a regular file";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a regular file";
  return "not a regular file";
}

StatusOr<std::string> readOpenFile(int fd, const std::string& path, size_t maxBytes) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return statusFromErrno(errno, path);
  if (!S_ISREG(st.st_mode)) return Status(StatusCode::kInvalidArgument, path + ": " + notRegularBecause(st.st_mode));
  // A file that says it is larger than the bound is refused unread (a sparse file of a terabyte costs nothing to
  // make); sysfs says a page whatever the content, so a page is never taken at its word.
  if (st.st_size > 4096 && static_cast<uint64_t>(st.st_size) > maxBytes) {
    return Status(StatusCode::kTooLarge, path + ": more than " + std::to_string(maxBytes) + " bytes");
  }

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

StatusOr<std::string> readFileBounded(const std::string& path, size_t maxBytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return statusFromErrno(errno, path);
  return readOpenFile(fd.get(), path, maxBytes);
}

StatusOr<std::vector<std::string>> listDirectory(const std::string& path, size_t maxEntries) {
  std::unique_ptr<DIR, DirCloser> dir(::opendir(path.c_str()));
  if (!dir) return statusFromErrno(errno, path);
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    // NOLINTNEXTLINE(concurrency-mt-unsafe): glibc's readdir is safe on a stream no other thread reads, as this one
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

std::pair<std::string, std::string> splitPath(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

StatusOr<UniqueFd> openDirectoryForWriting(const std::string& path, bool create, mode_t mode) {
  if (path.empty()) return Status(StatusCode::kInvalidArgument, "a directory with an empty name");
  std::vector<std::string> parts;
  for (std::string_view part : split(path, '/')) {
    if (!part.empty() && part != ".") parts.emplace_back(part);
  }
  const bool absolute = path[0] == '/';
  std::string shown = absolute ? "" : ".";
  UniqueFd at(::open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at) return statusFromErrno(errno, absolute ? "/" : ".");
  for (size_t i = 0; i < parts.size(); ++i) {
    const char* part = parts[i].c_str();
    shown = (i == 0 && !absolute ? "" : shown + "/") + parts[i];
    const int noFollow = i + 1 == parts.size() ? O_NOFOLLOW : 0;
    UniqueFd next(::openat(at.get(), part, O_PATH | O_DIRECTORY | O_CLOEXEC | noFollow));
    if (!next && errno == ENOENT && create) {
      // Made private, then given its mode once it is known to be the directory made here.
      bool made = ::mkdirat(at.get(), part, 0700) == 0;
      if (!made && errno != EEXIST) return statusFromErrno(errno, shown);
      next = UniqueFd(::openat(at.get(), part, (made ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (next && made && ::fchmod(next.get(), mode) != 0) return statusFromErrno(errno, shown);
    }
    struct stat st {};
    if (!next) {
      int err = errno;
      bool link = ::fstatat(at.get(), part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      if (!link || (err != ELOOP && err != ENOTDIR)) return statusFromErrno(err, shown);
    } else if (::fstat(next.get(), &st) != 0) {
      return statusFromErrno(errno, shown);
    }
    if (!next || !S_ISDIR(st.st_mode)) {  // O_PATH | O_NOFOLLOW may open the link itself
      return Status(StatusCode::kInvalidArgument,
                    shown + ": a symbolic link, not followed (docs/security.md); name the directory it points to");
    }
    at = std::move(next);
  }
  return at;
}

Status writeFileAtomically(const std::string& path, const std::string& content, mode_t mode) {
  auto [dir, name] = splitPath(path);
  if (name.empty()) return Status(StatusCode::kInvalidArgument, path + ": names a directory, not a file");
  UniqueFd dirFd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dirFd) return statusFromErrno(errno, path);
  return writeFileAt(dirFd.get(), name, content, path, mode);
}

Status writeFileAt(int dirFd, const std::string& name, const std::string& content, const std::string& shown,
                   mode_t mode) {
  UniqueFd fd(::openat(dirFd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!fd) {
    if (noAnonymousFiles(errno)) return detail::writeFileAtWithNamedTemporary(dirFd, name, content, shown, mode);
    return statusFromErrno(errno, shown);
  }
  Status filled = writeAll(fd.get(), content, mode, shown);
  if (!filled.isOk()) return filled;  // the anonymous file goes with its descriptor
  // An anonymous file gets a name only through /proc (linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH).
  // linkat never replaces a name, nor follows a link at it.
  std::string self = "/proc/self/fd/" + std::to_string(fd.get());
  for (int attempt = 0; attempt < kTemporaryNameTries; ++attempt) {
    std::string temporary = temporaryName(name);
    if (::linkat(AT_FDCWD, self.c_str(), dirFd, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      return renameInto(dirFd, temporary, name, shown);
    }
    if (errno == ENOENT && attempt == 0 && ::access("/proc/self/fd", F_OK) != 0) {
      return detail::writeFileAtWithNamedTemporary(dirFd, name, content, shown, mode);  // no /proc mounted
    }
    if (errno != EEXIST) return statusFromErrno(errno, shown);
  }
  return Status(StatusCode::kIoError, shown + ": every temporary name tried was taken");
}

bool isTemporaryFileOf(const std::string& entry, const std::string& prefix) {
  const size_t digits = 16, mark = std::strlen(kTemporaryMark);
  if (entry.size() < 1 + prefix.size() + mark + digits || entry[0] != '.') return false;
  if (entry.compare(1, prefix.size(), prefix) != 0) return false;
  if (entry.compare(entry.size() - digits - mark, mark, kTemporaryMark) != 0) return false;
  return std::all_of(entry.end() - digits, entry.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

namespace detail {

Status writeFileAtWithNamedTemporary(int dirFd, const std::string& name, const std::string& content,
                                     const std::string& shown, mode_t mode) {
  for (int attempt = 0; attempt < kTemporaryNameTries; ++attempt) {
    std::string temporary = temporaryName(name);
    // O_EXCL: a name already there, a link included (even one to nowhere), fails instead of being opened.
    UniqueFd fd(::openat(dirFd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) {
      if (errno == EEXIST) continue;
      return statusFromErrno(errno, shown);
    }
    Status filled = writeAll(fd.get(), content, mode, shown);
    int closed = ::close(fd.release());
    if (filled.isOk() && closed != 0) filled = statusFromErrno(errno, shown);
    if (!filled.isOk()) {
      ::unlinkat(dirFd, temporary.c_str(), 0);
      return filled;
    }
    return renameInto(dirFd, temporary, name, shown);
  }
  return Status(StatusCode::kIoError, shown + ": every temporary name tried was taken");
}

}  // namespace detail

}  // namespace nccl_roce

#include "gid/file_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file.h"

namespace nccl_roce::gid {

namespace {

class JoinedDirectoryFiles final : public DirectoryFiles {
 public:
  JoinedDirectoryFiles(const FileAccess& files, std::string path) : files_(files), path_(std::move(path)) {}
  StatusOr<std::string> read(const std::string& leaf, size_t maxBytes) const override {
    return files_.read(path_ + "/" + leaf, maxBytes);
  }

 private:
  const FileAccess& files_;
  std::string path_;
};

// One sysfs attribute is at most a page.
constexpr size_t kPageBytes = 4096;

// openat() relative to an O_PATH descriptor of the directory. No fstat per file: sysfs attributes are
// regular files, and O_NONBLOCK keeps anything else from blocking the scan.
class RealDirectoryFiles final : public DirectoryFiles {
 public:
  explicit RealDirectoryFiles(std::string path)
      : path_(std::move(path)), fd_(::open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}
  ~RealDirectoryFiles() override {
    if (fd_ >= 0) ::close(fd_);
  }
  StatusOr<std::string> read(const std::string& leaf, size_t maxBytes) const override {
    if (fd_ < 0) return readFileBounded(path_ + "/" + leaf, maxBytes);
    int fd = ::openat(fd_, leaf.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return statusFromErrno(errno, path_ + "/" + leaf);
    // A stack page covers every sysfs attribute; larger bounds fall back to a heap buffer.
    char page[kPageBytes + 1];
    std::string heap;
    char* buffer = page;
    if (maxBytes + 1 > sizeof(page)) {
      heap.resize(maxBytes + 1);
      buffer = heap.data();
    }
    ssize_t n;
    do {
      n = ::read(fd, buffer, maxBytes + 1);
    } while (n < 0 && errno == EINTR);
    int readErrno = errno;
    ::close(fd);
    if (n < 0) return statusFromErrno(readErrno, path_ + "/" + leaf);
    if (static_cast<size_t>(n) > maxBytes)
      return Status(StatusCode::kTooLarge, path_ + "/" + leaf + ": more than a page");
    return std::string(buffer, static_cast<size_t>(n));
  }

 private:
  std::string path_;
  int fd_;
};

class RealFileAccess final : public FileAccess {
 public:
  std::unique_ptr<DirectoryFiles> openDirectory(const std::string& path) const override {
    return std::make_unique<RealDirectoryFiles>(path);
  }
  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override {
    return readFileBounded(path, maxBytes);
  }
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override {
    return listDirectory(path, maxEntries);
  }
  StatusOr<std::string> readLink(const std::string& path) const override {
    char buffer[4096];
    ssize_t n = ::readlink(path.c_str(), buffer, sizeof(buffer));
    if (n < 0) return statusFromErrno(errno, path);
    if (static_cast<size_t>(n) == sizeof(buffer)) return Status(StatusCode::kTooLarge, path + ": link target too long");
    return std::string(buffer, static_cast<size_t>(n));
  }
  bool exists(const std::string& path) const override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }
};

}  // namespace

std::unique_ptr<DirectoryFiles> FileAccess::openDirectory(const std::string& path) const {
  return std::make_unique<JoinedDirectoryFiles>(*this, path);
}

const FileAccess& realFileAccess() {
  static RealFileAccess instance;
  return instance;
}

}  // namespace nccl_roce::gid

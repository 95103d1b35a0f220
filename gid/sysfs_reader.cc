#include "gid/sysfs_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

class RealFileAccess final : public FileAccess {
 public:
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

const FileAccess& realFileAccess() {
  static RealFileAccess instance;
  return instance;
}

SysfsReader::SysfsReader(std::string root, const FileAccess& files) : root_(std::move(root)), files_(files) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

StatusOr<std::string> SysfsReader::attribute(const std::string& relative) const {
  filesRead_.fetch_add(1, std::memory_order_relaxed);
  std::string full = path(relative);
  auto content = files_.read(full, kMaxAttributeBytes);
  if (!content.isOk()) return content.status();
  std::string_view text = trim(*content);
  if (text.empty()) return Status(StatusCode::kInvalidArgument, full + ": empty");
  return std::string(text);
}

StatusOr<std::vector<std::string>> SysfsReader::entries(const std::string& relative) const {
  return files_.list(path(relative), kMaxDirectoryEntries);
}

StatusOr<std::string> SysfsReader::linkTarget(const std::string& relative) const {
  return files_.readLink(path(relative));
}

bool SysfsReader::exists(const std::string& relative) const { return files_.exists(path(relative)); }

}  // namespace nccl_roce::gid

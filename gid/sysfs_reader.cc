#include "gid/sysfs_reader.h"

#include "common/strings.h"

namespace nccl_roce::gid {

SysfsReader::SysfsReader(std::string root, const FileAccess& files) : root_(std::move(root)), files_(files) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

StatusOr<std::string> SysfsReader::attribute(const std::string& relative) const {
  std::string full = path(relative);
  return finish(files_.read(full, kMaxAttributeBytes), full, {});
}

StatusOr<std::string> SysfsReader::finish(StatusOr<std::string> content, std::string_view directory,
                                          std::string_view leaf) const {
  filesRead_.fetch_add(1, std::memory_order_relaxed);
  if (!content.isOk()) return content.status();
  std::string_view text = trim(*content);
  if (text.empty()) {
    std::string full(directory);
    if (!leaf.empty()) full.append("/").append(leaf);
    return Status(StatusCode::kInvalidArgument, full + ": empty");
  }
  if (text.size() == content->size()) return std::move(content).value();
  return std::string(text);
}

SysfsReader::Directory SysfsReader::directory(const std::string& relative) const {
  std::string full = path(relative);
  return Directory(*this, files_.openDirectory(full), full);
}

StatusOr<std::string> SysfsReader::Directory::attribute(const std::string& leaf) const {
  return reader_.finish(files_->read(leaf, kMaxAttributeBytes), path_, leaf);
}

StatusOr<std::vector<std::string>> SysfsReader::entries(const std::string& relative) const {
  return files_.list(path(relative), kMaxDirectoryEntries);
}

StatusOr<std::string> SysfsReader::linkTarget(const std::string& relative) const {
  return files_.readLink(path(relative));
}

bool SysfsReader::exists(const std::string& relative) const {
  return files_.exists(path(relative));
}

}  // namespace nccl_roce::gid

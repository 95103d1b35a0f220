// Every read of sysfs goes through SysfsReader, constructed with the root to read under (UCX style: the
// path is a parameter; "/sys" is only the default a caller passes). File access itself is a seam so
// tests can make any path fail with EINVAL, EACCES or EIO, which regular fixture files cannot do.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace nccl_roce::gid {

// Reads files of one directory by leaf name. The real one opens the directory once and reads relative to it
// (openat), which keeps the kernel's path walk short: a GID table is hundreds of files in one directory.
class DirectoryFiles {
 public:
  virtual ~DirectoryFiles() = default;
  virtual StatusOr<std::string> read(const std::string& leaf, size_t maxBytes) const = 0;
};

class FileAccess {
 public:
  virtual ~FileAccess() = default;
  // Default: reads `path + "/" + leaf` through read(), so substitutes need not implement it.
  virtual std::unique_ptr<DirectoryFiles> openDirectory(const std::string& path) const;
  virtual StatusOr<std::string> read(const std::string& path, size_t maxBytes) const = 0;
  virtual StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const = 0;
  virtual StatusOr<std::string> readLink(const std::string& path) const = 0;
  // Whether the path names anything (following symlinks), e.g. class/net/<ifname>.
  virtual bool exists(const std::string& path) const = 0;
};

// The real file system (common/file.h: bounded, non-blocking, regular files only).
const FileAccess& realFileAccess();

class SysfsReader {
 public:
  // One sysfs attribute is at most a page; GID tables hold at most a few hundred entries.
  static constexpr size_t kMaxAttributeBytes = 4096;
  static constexpr size_t kMaxDirectoryEntries = 4096;

  explicit SysfsReader(std::string root, const FileAccess& files = realFileAccess());

  const std::string& root() const { return root_; }
  std::string path(const std::string& relative) const { return root_ + "/" + relative; }

  // The attribute's text without the kernel's trailing newline. An empty file is an error
  // (kInvalidArgument, "empty"), as unpopulated gid_attrs entries are.
  StatusOr<std::string> attribute(const std::string& relative) const;
  StatusOr<std::vector<std::string>> entries(const std::string& relative) const;
  StatusOr<std::string> linkTarget(const std::string& relative) const;
  bool exists(const std::string& relative) const;

  // Attributes of one directory (a GID table), read by leaf name; same rules as attribute().
  class Directory {
   public:
    StatusOr<std::string> attribute(const std::string& leaf) const;

   private:
    friend class SysfsReader;
    Directory(const SysfsReader& reader, std::unique_ptr<DirectoryFiles> files, std::string path)
        : reader_(reader), files_(std::move(files)), path_(std::move(path)) {}
    const SysfsReader& reader_;
    std::unique_ptr<DirectoryFiles> files_;
    std::string path_;
  };
  Directory directory(const std::string& relative) const;

  // Files opened for reading so far (attribute() calls): the benchmark's "read no file you do not need".
  size_t filesRead() const { return filesRead_.load(std::memory_order_relaxed); }

 private:
  StatusOr<std::string> finish(StatusOr<std::string> content, const std::string& full) const;

  std::string root_;
  const FileAccess& files_;
  mutable std::atomic<size_t> filesRead_{0};
};

}  // namespace nccl_roce::gid

// The file-access seam every read of sysfs goes through: the real file system, or a substitute that fails
// any path with EINVAL, EACCES or EIO (which regular fixture files cannot do), records what was read
// (gid/file_record.h), or serves a recording back.
#pragma once

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

}  // namespace nccl_roce::gid

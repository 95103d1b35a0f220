// Every read of sysfs goes through SysfsReader, constructed with the root to read under (UCX style: the
// path is a parameter; "/sys" is only the default a caller passes) and the file access to read through
// (gid/file_access.h). It applies the attribute rules (trailing newline trimmed, an empty file an error).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "gid/file_access.h"

namespace nccl_roce::gid {

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
  // Counts the read and applies the attribute rules; the path (directory + "/" + leaf) is only built for errors.
  StatusOr<std::string> finish(StatusOr<std::string> content, std::string_view directory, std::string_view leaf) const;

  std::string root_;
  const FileAccess& files_;
  mutable std::atomic<size_t> filesRead_{0};
};

}  // namespace nccl_roce::gid

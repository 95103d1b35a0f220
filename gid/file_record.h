// What was read through the file-access seam (gid/file_access.h), and the two file accesses around it:
// RecordingFileAccess passes every call to another file access and writes down each answer, failures
// included (EINVAL on an unpopulated gid_attrs entry, a missing file); RecordedFileAccess serves such a
// record back as if it were the file system. A snapshot made this way holds exactly what its reader read.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "gid/file_access.h"

namespace nccl_roce::gid {

// A failed call: its status code and its message without the path ("Invalid argument").
struct RecordedError {
  StatusCode code = StatusCode::kIoError;
  std::string detail;

  bool operator==(const RecordedError& other) const { return code == other.code && detail == other.detail; }
};

// Keys are paths relative to the root the record was made under ("class/infiniband/mlx5_0/ports/1/state").
struct FileRecord {
  std::map<std::string, std::string> files;                     // content, verbatim
  std::map<std::string, std::vector<std::string>> directories;  // entries, in the order listed
  std::map<std::string, std::string> links;                     // link targets
  std::set<std::string> existing;                               // paths exists() found
  std::map<std::string, RecordedError> errors;                  // failed reads, listings and link reads

  bool operator==(const FileRecord& other) const;
};

class RecordingFileAccess final : public FileAccess {
 public:
  // Records the answers of `inner` for paths under `root`; `inner` must outlive this.
  RecordingFileAccess(const FileAccess& inner, std::string root);

  std::unique_ptr<DirectoryFiles> openDirectory(const std::string& path) const override;
  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override;
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override;
  StatusOr<std::string> readLink(const std::string& path) const override;
  bool exists(const std::string& path) const override;

  FileRecord record() const;  // what was read so far

 private:
  friend class RecordingDirectoryFiles;
  std::string relative(const std::string& path) const;
  void recordRead(const std::string& path, const StatusOr<std::string>& answer) const;

  const FileAccess& inner_;
  std::string root_;
  mutable std::mutex mutex_;
  mutable FileRecord record_;
};

class RecordedFileAccess final : public FileAccess {
 public:
  // Serves `record` as the tree under `root`; `record` must outlive this. A path the record does not hold
  // reads as missing ("not in the snapshot").
  RecordedFileAccess(const FileRecord& record, std::string root) : record_(record), root_(std::move(root)) {}

  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override;
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override;
  StatusOr<std::string> readLink(const std::string& path) const override;
  bool exists(const std::string& path) const override;

 private:
  std::optional<std::string> relative(const std::string& path) const;
  Status missing(const std::string& relativePath, const std::string& fullPath) const;
  const FileRecord& record_;
  std::string root_;
};

// "invalid argument: Invalid argument"; the code's name alone when there is no detail.
std::string recordedErrorText(const RecordedError& error);
// The inverse; older snapshots hold the code's name alone. An unknown name reads as an I/O error.
RecordedError recordedErrorFromText(const std::string& text);

}  // namespace nccl_roce::gid

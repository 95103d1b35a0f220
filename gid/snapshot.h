// `nccl-roce snapshot`: the sysfs subset the resolver reads (every device, port and GID entry, with the
// errors each read gave), the namespace's addresses and the user's RDMA variables, in one JSON file a user
// attaches to a bug report. `detect --snapshot FILE` replays it through SnapshotFileAccess.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "gid/address_source.h"
#include "gid/sysfs_reader.h"

namespace nccl_roce::gid {

struct Snapshot {
  std::map<std::string, std::string> files;  // path relative to the sysfs root -> content, verbatim
  std::map<std::string, std::string> errors;  // path -> status code name of the failed read or listing
  std::map<std::string, std::vector<std::string>> directories;
  std::map<std::string, std::string> links;
  std::set<std::string> existing;             // paths found by exists() (e.g. device/physfn)
  std::optional<std::vector<InterfaceAddress>> addresses;
  std::map<std::string, std::string> environment;  // the user's values of the variables we resolve
  std::string hostname;
  std::string capturedAt;  // UTC, ISO 8601
};

// Walks everything under `sysfsRoot` the resolver could read, recording each answer.
Snapshot captureSnapshot(const std::string& sysfsRoot, const AddressSource* addresses, const Environment& env);

std::string snapshotToJsonText(const Snapshot& snapshot);
StatusOr<Snapshot> snapshotFromJsonText(const std::string& text);
StatusOr<Snapshot> readSnapshotFile(const std::string& path);

// Serves a snapshot's recorded answers as if it were the file system under `root`.
class SnapshotFileAccess final : public FileAccess {
 public:
  SnapshotFileAccess(const Snapshot& snapshot, std::string root) : snapshot_(snapshot), root_(std::move(root)) {}
  StatusOr<std::string> read(const std::string& path, size_t maxBytes) const override;
  StatusOr<std::vector<std::string>> list(const std::string& path, size_t maxEntries) const override;
  StatusOr<std::string> readLink(const std::string& path) const override;
  bool exists(const std::string& path) const override;

 private:
  std::optional<std::string> relative(const std::string& path) const;
  Status recordedError(const std::string& relativePath, const std::string& fullPath) const;
  const Snapshot& snapshot_;
  std::string root_;
};

}  // namespace nccl_roce::gid

// `nccl-roce snapshot`: what the resolver read on a machine (every sysfs answer, failures included), the
// namespace's addresses and the user's RDMA variables it read, in one JSON file a user attaches to a bug
// report. `detect --snapshot FILE` replays it through RecordedFileAccess.
//
// Capture goes through the resolver's own seams (SnapshotRecorder), so a read added to discovery is in the
// next snapshot without anyone listing it here.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "gid/address_source.h"
#include "gid/file_record.h"
#include "gid/resolve.h"
#include "gid/sysfs_reader.h"

namespace nccl_roce::gid {

struct Snapshot {
  FileRecord sysfs;                                        // paths relative to the sysfs root
  std::optional<std::vector<InterfaceAddress>> addresses;  // nullopt: not known when captured
  std::map<std::string, std::string> environment;          // the variables the resolver read that the user had set
  std::string hostname;
  std::string capturedAt;  // UTC, ISO 8601
};

// Records everything read through it. Resolve with sources() and environment(); read anything else the
// snapshot should hold (the doctor's checks) through reader(); then take snapshot(). sources() names no
// verbs table: a replay has none, so sysfs alone must answer every read the replay makes.
class SnapshotRecorder {
 public:
  // `addresses` (may be null: unknown), `user` and `files` must outlive the recorder.
  SnapshotRecorder(const std::string& sysfsRoot, const AddressSource* addresses, const Environment& user,
                   const FileAccess& files = realFileAccess());
  ~SnapshotRecorder();

  const SysfsReader& reader() const { return reader_; }
  ResolverSources sources() const;
  const Environment& environment() const;
  // What was read so far, stamped with this host's name and the time.
  Snapshot snapshot() const;

 private:
  class Addresses;
  class Variables;
  RecordingFileAccess files_;
  SysfsReader reader_;
  std::unique_ptr<Addresses> addresses_;
  std::unique_ptr<Variables> variables_;
};

// A snapshot served as resolver sources: its sysfs answers under `root`, its addresses, its variables.
class SnapshotReplay {
 public:
  // `snapshot` must outlive the replay.
  explicit SnapshotReplay(const Snapshot& snapshot, const std::string& root = "/snapshot");

  const SysfsReader& reader() const { return reader_; }
  ResolverSources sources() const;  // addressSourceName "snapshot"; no verbs
  const Environment& environment() const { return variables_; }

 private:
  RecordedFileAccess files_;
  SysfsReader reader_;
  std::optional<FixedAddressSource> addresses_;
  MapEnvironment variables_;
};

std::string snapshotToJsonText(const Snapshot& snapshot);
StatusOr<Snapshot> snapshotFromJsonText(const std::string& text);
StatusOr<Snapshot> readSnapshotFile(const std::string& path);

}  // namespace nccl_roce::gid

// The textfile directory's stale-file sweep (docs/environment.md, NCCL_ROCE_METRICS): a process killed before it
// could remove its textfile leaves it behind, and any live writer removes it once nothing has rewritten it for
// kTextfileMaxAge. The directory is node-exporter's, which every pod on the node shares with whatever else writes
// textfiles there, perhaps hundreds of thousands of files, some planted (docs/security.md). So the sweep
//   - removes only regular files with our names (textfile_identity.h), checked with lstat, never following a link:
//     never a directory, a link, a FIFO, nor another program's file;
//   - does a bounded share of the work per call (Limits: entries looked at, files removed, time), the next call
//     going on where the last stopped, so one pass over a large directory spreads over several rounds;
//   - runs on the metrics writer's own thread only (plugin/metrics_textfile.h), never on NCCL's.
// Not thread-safe: one thread sweeps at a time (the writer's).
#pragma once

#include <dirent.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace nccl_roce::plugin {

class TextfileSweep {
 public:
  struct Limits {
    size_t entries = 20000;  // directory entries looked at per call
    size_t removals = 1000;  // files removed per call
    std::chrono::milliseconds time{50};
  };
  struct Round {
    size_t examined = 0;  // directory entries looked at
    size_t removed = 0;
    bool passDone = false;  // the end of the directory was reached: the next call starts a new pass
  };

  TextfileSweep() = default;
  ~TextfileSweep() { close(); }
  TextfileSweep(const TextfileSweep&) = delete;
  TextfileSweep& operator=(const TextfileSweep&) = delete;

  // One share of the sweep of the directory open at `dirFd`, removing our textfiles (and temporary files) other
  // than `own` last modified before `now - maxAge`. Errors end the round quietly: another writer may remove the
  // same file, and the directory may go.
  Round sweep(int dirFd, const std::string& own, std::chrono::system_clock::time_point now, std::chrono::seconds maxAge,
              const Limits& limits);
  // Lets go of the directory: the next call starts a new pass.
  void close();

 private:
  DIR* stream_ = nullptr;  // the pass under way
  dev_t device_ = 0;       // of the directory it reads: another directory starts a new pass
  ino_t inode_ = 0;
};

}  // namespace nccl_roce::plugin

// Reading directories others can write (docs/security.md): the statistics hostPath, node-exporter's directory, a
// directory of collected files. A file the user names is read as named, links followed: they chose it. What is
// found in a directory they name is read beneath that directory: regular files only, no link followed below it,
// never a FIFO opened long enough to wait on it (O_NONBLOCK, then fstat), nothing larger than the caller's bound;
// and each entry that is not read although it could have been wanted is named with the reason.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace nccl_roce {

// A file to read: named by the user (`root` empty: `relative` is the path as given), or found beneath the directory
// `root` (as the user named it) at `relative`.
struct FoundFile {
  std::string root;
  std::string relative;
  std::string path() const { return root.empty() ? relative : root + "/" + relative; }
  bool operator<(const FoundFile& other) const { return path() < other.path(); }
  bool operator==(const FoundFile& other) const { return path() == other.path(); }
};

// An entry of a walked directory left unread, and why ("a FIFO, not a regular file").
struct SkippedEntry {
  std::string path, why;
  bool link = false;  // a symbolic link: what it points at may hold what the user wanted (the other kinds cannot)
};

struct DirectoryWalk {
  int maxDepth = 8;  // levels whose files are taken: 1, the named directory's own; 2, its subdirectories' too; ...
  size_t maxEntries = 100000;                           // entries looked at in all; past it the walk fails (kTooLarge)
  std::function<bool(const std::string& name)> wanted;  // the file names to take; others pass silently; empty: all
  std::function<bool(const std::string& a, const std::string& b)> order;  // of each directory's entries; empty: bytes
  bool skipHidden = false;                                                // names starting with '.'
};

struct WalkResult {
  std::vector<FoundFile> files;
  std::vector<SkippedEntry> skipped;
  std::vector<std::string> directories;  // walked into, beneath the root (the start included), in walk order
};

// The regular files beneath the directory `root` (links in `root` itself followed) whose names `walk.wanted` takes,
// each directory's entries in `walk.order`, subdirectories in place. With `start` (a path beneath root, opened
// without following a link), from there instead: the directory it names, or the one file (whatever its name: a glob
// matched it). A symbolic link is never followed: it is named as skipped when its name is wanted or it points at a
// directory; a FIFO, socket or device is named when its name is wanted; a subdirectory that cannot be read is
// named. Errors: `root` (or `start`) missing or unreadable, or more than walk.maxEntries entries.
StatusOr<WalkResult> walkDirectory(const std::string& root, const DirectoryWalk& walk, const std::string& start = "");

// Reads a file under readFileBounded's rules; one found beneath a directory is opened from that directory one
// component at a time with O_NOFOLLOW, so a directory swapped for a link since the walk is not followed either
// (kInvalidArgument, "a symbolic link, not followed").
StatusOr<std::string> readFoundFile(const FoundFile& file, size_t maxBytes);

}  // namespace nccl_roce

// Bounded reads of small files and directory listings, with errno kept as a StatusCode.
// The rdma-core rule applies: content larger than the caller's bound is an error, never truncated;
// anything that is not a regular file (a FIFO would block, a device could be anything) is refused.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace nccl_roce {

// strerror's text for `err`, safe to call from several threads at once (the plugin's init runs on several):
// strerror itself may share one buffer between them.
std::string errnoText(int err);

// ENOENT/ENOTDIR -> kNotFound; EINVAL/ENODATA/EOPNOTSUPP -> kInvalidArgument (sysfs's "not readable here");
// EACCES/EPERM -> kPermissionDenied; everything else (EIO, ELOOP, ...) -> kIoError. `what` names the path.
Status statusFromErrno(int err, const std::string& what);

// Reads the whole file. kTooLarge if it holds more than maxBytes.
StatusOr<std::string> readFileBounded(const std::string& path, size_t maxBytes);
// The same of a file already open (with O_NONBLOCK, so a FIFO is refused, never waited on); `path` names it.
StatusOr<std::string> readOpenFile(int fd, const std::string& path, size_t maxBytes);
// Why a file of this type is not read: "a FIFO, not a regular file", "a device, not a regular file", ...
const char* notRegularBecause(mode_t mode);

// Names in a directory, without "." and "..", in no particular order. kTooLarge past maxEntries.
StatusOr<std::vector<std::string>> listDirectory(const std::string& path, size_t maxEntries);

// A file descriptor closed when it goes; -1 holds none.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// The directory part and the name of a path: "a/b/c" -> {"a/b", "c"}, "c" -> {".", "c"}, "/c" -> {"/", "c"}.
std::pair<std::string, std::string> splitPath(const std::string& path);

// Opens the directory `path` for writeFileAt. With `create`, makes it and every missing directory above it, each
// with exactly `mode` whatever the umask. Links in the components above the last are followed (the operator's own
// paths: /var/lib may be a link); the last component, and every directory made here, must be a directory itself:
// a link there is refused, never followed (kInvalidArgument, "a symbolic link, not followed"), as another user of
// a shared parent may have planted it (docs/security.md). Errors name the component at fault.
StatusOr<UniqueFd> openDirectoryForWriting(const std::string& path, bool create, mode_t mode = 0755);

// Writes a whole file so that readers never see half of it and nothing planted in the directory can redirect
// the write (docs/security.md). The content goes into a temporary file in the same directory, then rename(2)
// puts it at `path`: the temporary file is anonymous (O_TMPFILE) until it is linked under a name nobody can
// predict, or, where the file system has no O_TMPFILE, is created under such a name with O_EXCL | O_NOFOLLOW.
// Either way no link, FIFO or file already in the directory is ever opened. Whatever `path` names is replaced (a
// link by the file, never written through); a directory there is an error. The file's mode is exactly `mode`,
// whatever the umask (node-exporter reads the metrics textfile as another user). Links in the directory part of
// `path` are followed: the caller named it. Errors name `path`, never the temporary name.
Status writeFileAtomically(const std::string& path, const std::string& content, mode_t mode = 0644);
// The same into the directory open at `dirFd`, as `name` (no '/'); errors name `shown`.
Status writeFileAt(int dirFd, const std::string& name, const std::string& content, const std::string& shown,
                   mode_t mode = 0644);

// Temporary files of writeFileAt are ".<name>.tmp-<16 hex digits>" (`name` cut to 200 bytes): hidden, so no
// reader that lists "*.prom" or "*.json" takes one. True for such a name whose cut name starts with `prefix`.
bool isTemporaryFileOf(const std::string& entry, const std::string& prefix);

namespace detail {
// writeFileAt as it runs where the file system has no O_TMPFILE (tests run both).
Status writeFileAtWithNamedTemporary(int dirFd, const std::string& name, const std::string& content,
                                     const std::string& shown, mode_t mode);
}  // namespace detail

}  // namespace nccl_roce

// Bounded reads of small files and directory listings, with errno kept as a StatusCode.
// The rdma-core rule applies: content larger than the caller's bound is an error, never truncated;
// anything that is not a regular file (a FIFO would block, a device could be anything) is refused.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"

namespace nccl_roce {

// ENOENT/ENOTDIR -> kNotFound; EINVAL/ENODATA/EOPNOTSUPP -> kInvalidArgument (sysfs's "not readable here");
// EACCES/EPERM -> kPermissionDenied; everything else (EIO, ELOOP, ...) -> kIoError. `what` names the path.
Status statusFromErrno(int err, const std::string& what);

// Reads the whole file. kTooLarge if it holds more than maxBytes.
StatusOr<std::string> readFileBounded(const std::string& path, size_t maxBytes);

// Names in a directory, without "." and "..", in no particular order. kTooLarge past maxEntries.
StatusOr<std::vector<std::string>> listDirectory(const std::string& path, size_t maxEntries);

// Writes through a temporary file in the same directory and rename(2), so readers never see half a file.
Status writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace nccl_roce

// How the driver's ranks meet without MPI: rank 0 writes NCCL's unique id (an opaque 128-byte blob) to a file
// atomically; the other ranks poll for it. The file holds the id as hex on one line, so a half-written or
// foreign file is told apart from a real id instead of being fed to NCCL.
#pragma once

#include <string>

#include "common/status.h"

namespace nccl_roce::driver {

Status publishUniqueId(const std::string& path, const std::string& id);

// Waits up to timeoutMs (polling every pollMs) for the file and copies the id it holds, which must be exactly
// `bytes` long, to `out`. kUnavailable after the timeout; kParseError for a file that is not such an id.
Status awaitUniqueId(const std::string& path, char* out, size_t bytes, int timeoutMs, int pollMs = 20);

std::string hexEncode(const std::string& bytes);
StatusOr<std::string> hexDecode(const std::string& text);

}  // namespace nccl_roce::driver

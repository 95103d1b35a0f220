#include "common/status.h"

namespace nccl_roce {

const char* statusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kPermissionDenied:
      return "permission denied";
    case StatusCode::kIoError:
      return "I/O error";
    case StatusCode::kTooLarge:
      return "too large";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kParseError:
      return "parse error";
    case StatusCode::kFailedPrecondition:
      return "failed precondition";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  if (message_.empty()) return statusCodeName(code_);
  return std::string(statusCodeName(code_)) + ": " + message_;
}

}  // namespace nccl_roce

// Status and StatusOr: how fallible code reports failure instead of throwing (leveldb/abseil style).
// Nothing in this project throws across a C ABI; internal code returns these and the plugin edge
// turns them into one log line and NCCL's own behaviour.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace nccl_roce {

enum class StatusCode {
  kOk = 0,
  kNotFound,          // ENOENT, ENOTDIR: the thing is not there
  kInvalidArgument,   // EINVAL from the kernel, or a value that does not parse
  kPermissionDenied,  // EACCES, EPERM
  kIoError,           // EIO and other system failures
  kTooLarge,          // content larger than the reader accepts: never truncated silently
  kUnavailable,       // a library or facility is absent (libibverbs, getifaddrs)
  kParseError,        // a user-written file with a precise location in the message
  kFailedPrecondition,
};

const char* statusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "not found: /sys/class/infiniband/mlx5_0/ports/1/state"
  std::string toString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!status_.isOk() && "StatusOr needs a value or an error");
    if (status_.isOk()) status_ = Status(StatusCode::kFailedPrecondition, "StatusOr built from an ok Status");
  }

  bool isOk() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace nccl_roce

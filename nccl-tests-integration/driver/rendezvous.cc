#include "nccl-tests-integration/driver/rendezvous.h"

#include <chrono>
#include <cstring>
#include <thread>

#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce::driver {

std::string hexEncode(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

StatusOr<std::string> hexDecode(const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (text.size() % 2 != 0) return Status(StatusCode::kParseError, "odd number of hex digits");
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return Status(StatusCode::kParseError, "not a hex digit at offset " + std::to_string(i));
    out += static_cast<char>(hi << 4 | lo);
  }
  return out;
}

Status publishUniqueId(const std::string& path, const std::string& id) {
  return writeFileAtomically(path, hexEncode(id) + "\n");
}

Status awaitUniqueId(const std::string& path, char* out, size_t bytes, int timeoutMs, int pollMs) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  while (true) {
    // The file appears whole (rename), so the first successful read is final.
    StatusOr<std::string> text = readFileBounded(path, bytes * 2 + 16);
    if (text.isOk()) {
      StatusOr<std::string> id = hexDecode(std::string(trim(*text)));
      if (!id.isOk()) return Status(StatusCode::kParseError, path + ": not a unique id: " + id.status().message());
      if (id->size() != bytes) {
        return Status(StatusCode::kParseError,
                      path + ": holds " + std::to_string(id->size()) + " bytes, expected " + std::to_string(bytes));
      }
      std::memcpy(out, id->data(), bytes);
      return Status::ok();
    }
    if (text.status().code() != StatusCode::kNotFound) return text.status();
    if (Clock::now() >= deadline) {
      return Status(StatusCode::kUnavailable, "rank 0 did not write " + path + " within " +
                                                  std::to_string(timeoutMs / 1000) + " s (is rank 0 running?)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
  }
}

}  // namespace nccl_roce::driver

// SHA-256 (FIPS 180-4), for policy digests that operators can compare with `sha256sum`. Written here because
// the plugin library may depend on libc alone (no libcrypto); checked against NIST's test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nccl_roce {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::array<uint8_t, 32> finish();  // the object is spent afterwards

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes hashed so far
};

// The lower-case hex digest of `bytes`, as sha256sum prints it.
std::string sha256Hex(std::string_view bytes);

}  // namespace nccl_roce

#include "gid/gid_value.h"

#include <arpa/inet.h>

#include <cstdio>

namespace nccl_roce::gid {

const char* familyName(AddressFamily family) {
  return family == AddressFamily::kIpv4 ? "IPv4" : "IPv6";
}

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<GidValue> GidValue::parseKernel(std::string_view text) {
  // 8 groups x 4 digits + 7 colons.
  if (text.size() != 39) return std::nullopt;
  GidValue gid;
  for (int group = 0; group < 8; ++group) {
    size_t at = static_cast<size_t>(group) * 5;
    if (group < 7 && text[at + 4] != ':') return std::nullopt;
    int value = 0;
    for (size_t i = 0; i < 4; ++i) {
      int digit = hexValue(text[at + i]);
      if (digit < 0) return std::nullopt;
      value = value * 16 + digit;
    }
    gid.bytes[static_cast<size_t>(group) * 2] = static_cast<uint8_t>(value >> 8);
    gid.bytes[static_cast<size_t>(group) * 2 + 1] = static_cast<uint8_t>(value & 0xff);
  }
  return gid;
}

GidValue GidValue::fromBytes(const uint8_t* raw16) {
  GidValue gid;
  for (size_t i = 0; i < 16; ++i) gid.bytes[i] = raw16[i];
  return gid;
}

bool GidValue::isZero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

bool GidValue::isIpv4Mapped() const {
  for (size_t i = 0; i < 10; ++i) {
    if (bytes[i] != 0) return false;
  }
  return bytes[10] == 0xff && bytes[11] == 0xff;
}

bool GidValue::isIpv6LinkLocal() const {
  return bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80;
}

bool GidValue::isIpv4LinkLocal() const {
  return isIpv4Mapped() && bytes[12] == 169 && bytes[13] == 254;
}

std::string GidValue::toKernelString() const {
  char out[40];
  std::snprintf(out, sizeof(out), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", bytes[0],
                bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return out;
}

std::string GidValue::toAddressString() const {
  char out[INET6_ADDRSTRLEN];
  if (isIpv4Mapped()) {
    if (inet_ntop(AF_INET, &bytes[12], out, sizeof(out)) == nullptr) return toKernelString();
  } else {
    if (inet_ntop(AF_INET6, bytes.data(), out, sizeof(out)) == nullptr) return toKernelString();
  }
  return out;
}

}  // namespace nccl_roce::gid

// A GID as the kernel writes it in ports/<p>/gids/<N>: eight groups of four lower-case hex digits
// ("fe80:0000:0000:0000:0ac0:ebff:feda:1cfb"), classified by its bytes, never by substrings
// (KServe's "contains ffff:" test accepts ULAs and link-locals).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nccl_roce::gid {

enum class AddressFamily { kIpv4, kIpv6 };
const char* familyName(AddressFamily family);  // "IPv4" / "IPv6"

struct GidValue {
  std::array<uint8_t, 16> bytes{};

  // Exactly the kernel's format (39 characters, trailing newline/space already trimmed); nullopt otherwise.
  static std::optional<GidValue> parseKernel(std::string_view text);
  static GidValue fromBytes(const uint8_t* raw16);

  bool isZero() const;
  // ::ffff:a.b.c.d (RoCE v2 over IPv4).
  bool isIpv4Mapped() const;
  // fe80::/10: never a GID NCCL can route with.
  bool isIpv6LinkLocal() const;
  // IPv4-mapped 169.254.0.0/16: what directly cabled pairs (two DGX Sparks) are addressed with.
  bool isIpv4LinkLocal() const;
  AddressFamily family() const { return isIpv4Mapped() ? AddressFamily::kIpv4 : AddressFamily::kIpv6; }

  std::string toKernelString() const;   // eight groups of four hex digits
  std::string toAddressString() const;  // "10.156.129.132" for IPv4-mapped, inet_ntop text otherwise

  bool operator==(const GidValue& other) const { return bytes == other.bytes; }
  bool operator!=(const GidValue& other) const { return bytes != other.bytes; }
};

}  // namespace nccl_roce::gid

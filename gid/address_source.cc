#include "gid/address_source.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>

#include "common/file.h"
#include "common/strings.h"

namespace nccl_roce::gid {

namespace {

constexpr size_t kMaxAddressFileBytes = 1 << 20;

GidValue mappedIpv4(const void* in4) {
  GidValue gid;
  gid.bytes[10] = 0xff;
  gid.bytes[11] = 0xff;
  std::memcpy(&gid.bytes[12], in4, 4);
  return gid;
}

int prefixFromMask(const uint8_t* mask, size_t len) {
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    for (int b = 7; b >= 0; --b) {
      if ((mask[i] >> b) & 1) ++bits;
    }
  }
  return bits;
}

}  // namespace

StatusOr<std::vector<InterfaceAddress>> KernelAddressSource::list() const {
  struct ifaddrs* head = nullptr;
  if (get_(&head) != 0) return statusFromErrno(errno, "getifaddrs");
  std::vector<InterfaceAddress> out;
  for (struct ifaddrs* it = head; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_name == nullptr) continue;
    InterfaceAddress entry;
    entry.ifname = it->ifa_name;
    if (it->ifa_addr->sa_family == AF_INET) {
      auto* sin = reinterpret_cast<const struct sockaddr_in*>(it->ifa_addr);
      entry.address = mappedIpv4(&sin->sin_addr);
      if (it->ifa_netmask != nullptr) {
        auto* mask = reinterpret_cast<const struct sockaddr_in*>(it->ifa_netmask);
        entry.prefixLength = prefixFromMask(reinterpret_cast<const uint8_t*>(&mask->sin_addr), 4);
      }
    } else if (it->ifa_addr->sa_family == AF_INET6) {
      auto* sin6 = reinterpret_cast<const struct sockaddr_in6*>(it->ifa_addr);
      entry.address = GidValue::fromBytes(sin6->sin6_addr.s6_addr);
      if (it->ifa_netmask != nullptr) {
        auto* mask = reinterpret_cast<const struct sockaddr_in6*>(it->ifa_netmask);
        entry.prefixLength = prefixFromMask(mask->sin6_addr.s6_addr, 16);
      }
    } else {
      continue;
    }
    out.push_back(std::move(entry));
  }
  release_(head);
  return out;
}

StatusOr<InterfaceAddress> parseCidr(std::string_view ifname, std::string_view cidr) {
  size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) {
    return Status(StatusCode::kParseError, "'" + std::string(cidr) + "' has no /PREFIXLEN");
  }
  std::string address(cidr.substr(0, slash));
  std::optional<uint64_t> prefix = parseUnsigned(cidr.substr(slash + 1));
  InterfaceAddress entry;
  entry.ifname = std::string(ifname);
  uint8_t raw[16];
  if (inet_pton(AF_INET, address.c_str(), raw) == 1) {
    if (!prefix || *prefix > 32) {
      return Status(StatusCode::kParseError, "'" + std::string(cidr) + "': IPv4 prefix length must be 0..32");
    }
    entry.address = mappedIpv4(raw);
  } else if (inet_pton(AF_INET6, address.c_str(), raw) == 1) {
    if (!prefix || *prefix > 128) {
      return Status(StatusCode::kParseError, "'" + std::string(cidr) + "': IPv6 prefix length must be 0..128");
    }
    entry.address = GidValue::fromBytes(raw);
  } else {
    return Status(StatusCode::kParseError, "'" + address + "' is not an IPv4 or IPv6 address");
  }
  entry.prefixLength = static_cast<int>(*prefix);
  return entry;
}

StatusOr<std::vector<InterfaceAddress>> parseAddressList(std::string_view text) {
  std::vector<InterfaceAddress> out;
  int lineNumber = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++lineNumber;
    std::string_view line = raw;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    size_t space = line.find_first_of(" \t");
    if (space == std::string_view::npos) {
      return Status(StatusCode::kParseError, "line " + std::to_string(lineNumber) +
                                                 ": expected 'IFNAME ADDRESS/PREFIXLEN', got '" + std::string(line) +
                                                 "'");
    }
    std::string_view ifname = line.substr(0, space);
    std::string_view cidr = trim(line.substr(space + 1));
    if (cidr.find_first_of(" \t") != std::string_view::npos) {
      return Status(StatusCode::kParseError, "line " + std::to_string(lineNumber) + ": expected one address after '" +
                                                 std::string(ifname) + "'");
    }
    auto entry = parseCidr(ifname, cidr);
    if (!entry.isOk()) {
      return Status(StatusCode::kParseError, "line " + std::to_string(lineNumber) + ": " + entry.status().message());
    }
    out.push_back(std::move(*entry));
  }
  return out;
}

StatusOr<std::vector<InterfaceAddress>> readAddressFile(const std::string& path) {
  auto text = readFileBounded(path, kMaxAddressFileBytes);
  if (!text.isOk()) return text.status();
  auto parsed = parseAddressList(*text);
  if (!parsed.isOk()) return Status(StatusCode::kParseError, path + ": " + parsed.status().message());
  return parsed;
}

}  // namespace nccl_roce::gid

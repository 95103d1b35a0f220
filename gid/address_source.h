// Where the addresses of this network namespace come from: the kernel (getifaddrs), a file in the
// `IFNAME ADDRESS/PREFIXLEN` format of `nccl-roce detect --ifaddrs`, or a fixed list (tests, snapshots).
// A RoCE v2 GID *is* an IP address (IPv4 as ::ffff:a.b.c.d), so addresses are held as GidValue.
#pragma once

#include <ifaddrs.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "gid/gid_value.h"

namespace nccl_roce::gid {

struct InterfaceAddress {
  std::string ifname;
  GidValue address;
  int prefixLength = 0;  // 0..32 for IPv4, 0..128 for IPv6
};

class AddressSource {
 public:
  virtual ~AddressSource() = default;
  virtual StatusOr<std::vector<InterfaceAddress>> list() const = 0;
};

// getifaddrs(3). The two functions are injectable so tests can make the call fail.
class KernelAddressSource final : public AddressSource {
 public:
  using GetIfaddrsFn = int (*)(struct ifaddrs**);
  using FreeIfaddrsFn = void (*)(struct ifaddrs*);
  explicit KernelAddressSource(GetIfaddrsFn get = ::getifaddrs, FreeIfaddrsFn release = ::freeifaddrs)
      : get_(get), release_(release) {}
  StatusOr<std::vector<InterfaceAddress>> list() const override;

 private:
  GetIfaddrsFn get_;
  FreeIfaddrsFn release_;
};

class FixedAddressSource final : public AddressSource {
 public:
  explicit FixedAddressSource(std::vector<InterfaceAddress> addresses) : addresses_(std::move(addresses)) {}
  StatusOr<std::vector<InterfaceAddress>> list() const override { return addresses_; }

 private:
  std::vector<InterfaceAddress> addresses_;
};

// One `IFNAME ADDRESS/PREFIXLEN` per line; `#` starts a comment; blank lines ignored.
// Errors name the line: "line 3: '10.0.0.1' has no /PREFIXLEN".
StatusOr<std::vector<InterfaceAddress>> parseAddressList(std::string_view text);
StatusOr<std::vector<InterfaceAddress>> readAddressFile(const std::string& path);

// "10.0.0.1/24" or "fd00::5/64".
StatusOr<InterfaceAddress> parseCidr(std::string_view ifname, std::string_view cidr);

}  // namespace nccl_roce::gid

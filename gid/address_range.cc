#include "gid/address_range.h"

namespace nccl_roce::gid {

namespace {
bool bitAt(const GidValue& v, int bit) {
  return (v.bytes[static_cast<size_t>(bit / 8)] >> (7 - bit % 8)) & 1;
}
}  // namespace

AddressRange AddressRange::covering(const std::vector<GidValue>& addresses) {
  AddressRange range;
  if (addresses.empty()) return range;
  int bits = 128;
  for (const auto& a : addresses) {
    int shared = 0;
    while (shared < bits && bitAt(a, shared) == bitAt(addresses.front(), shared)) ++shared;
    bits = shared;
  }
  range.prefixBits_ = bits;
  range.base_ = addresses.front();
  for (int bit = bits; bit < 128; ++bit) {
    range.base_.bytes[static_cast<size_t>(bit / 8)] &= static_cast<uint8_t>(~(1u << (7 - bit % 8)));
  }
  return range;
}

bool AddressRange::contains(const GidValue& address) const {
  for (int bit = 0; bit < prefixBits_; ++bit) {
    if (bitAt(address, bit) != bitAt(base_, bit)) return false;
  }
  return true;
}

std::string AddressRange::toString() const {
  int prefix = base_.isIpv4Mapped() ? prefixBits_ - 96 : prefixBits_;
  if (prefix < 0) prefix = 0;
  return base_.toAddressString() + "/" + std::to_string(prefix);
}

}  // namespace nccl_roce::gid
